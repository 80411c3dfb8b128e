import { STATUS_CODES } from 'node:http';
import type { Response } from 'express';
import { ERROR_STATUS, isErrorCode } from '@voxgate/kit';

/** RFC 9457 problem details, the body of every error answer of /api/v1. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: string;
  errors?: { field: string; message: string }[];
  [extension: string]: unknown;
}

export function problem(status: number, code: string, detail: string, extra: Record<string, unknown> = {}): Problem {
  return {
    type: `urn:voxgate:problem:${code.toLowerCase().replace(/_/g, '-')}`,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    code,
    ...extra,
  };
}

export function sendProblem(res: Response, p: Problem): void {
  res.status(p.status).type('application/problem+json').send(JSON.stringify(p));
}

export interface GraphQLErrorLike {
  message: string;
  extensions?: Record<string, unknown>;
}

const GRAPHQL_INPUT_CODES = new Set(['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_PARSE_FAILED', 'BAD_REQUEST']);

/** The one mapping from the error vocabulary to HTTP statuses. */
export function problemFromGraphQL(error: GraphQLErrorLike, instance: string): Problem {
  const raw = error.extensions?.code;
  const code = typeof raw === 'string' ? raw : 'INTERNAL_SERVER_ERROR';
  const status = isErrorCode(code) ? ERROR_STATUS[code] : GRAPHQL_INPUT_CODES.has(code) ? 400 : 500;
  const extra: Record<string, unknown> = { instance };
  const fields = error.extensions?.fields;
  if (Array.isArray(fields)) extra.errors = fields;
  for (const key of ['retryAfterSeconds', 'quota', 'periodEnd', 'providerError']) {
    if (error.extensions?.[key] !== undefined) extra[key] = error.extensions[key];
  }
  const detail = status === 500 ? 'Internal server error' : error.message;
  return problem(status, status === 400 && code !== 'BAD_USER_INPUT' ? 'BAD_USER_INPUT' : code, detail, extra);
}
