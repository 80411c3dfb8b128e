import { GraphQLError } from 'graphql';

/** The one error vocabulary shared by subgraphs, the gateway and the REST facade. */
export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  QUOTA_EXCEEDED: 429,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in ERROR_STATUS;
}

export function appError(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { ...extensions, code } });
}

export const badInput = (message: string, extensions?: Record<string, unknown>) =>
  appError('BAD_USER_INPUT', message, extensions);
export const notFound = (what: string) => appError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => appError('CONFLICT', message);
export const forbidden = (message = 'Insufficient scope') => appError('FORBIDDEN', message);
export const unauthenticated = (message = 'Authentication required') => appError('UNAUTHENTICATED', message);
export const unavailable = (message: string) => appError('UNAVAILABLE', message);
