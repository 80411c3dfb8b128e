import { isIPv4 } from 'node:net';
import { GrpcTargetError, isValidHostname, parseGrpcTarget, parseHostPort } from './target';

/**
 * PLAINTEXT: no TLS (trusted private networks only). SYSTEM_TRUST: TLS verified against the
 * system trust store (plus the deployment CA when one is configured). MTLS: TLS with the
 * deployment's client certificate.
 */
export type GrpcTlsMode = 'PLAINTEXT' | 'SYSTEM_TRUST' | 'MTLS';

export const GRPC_TLS_MODES: readonly GrpcTlsMode[] = ['PLAINTEXT', 'SYSTEM_TRUST', 'MTLS'];

/** A model's gRPC configuration (sentver `grpc*` fields / embedding `grpc` object). */
export interface GrpcClientConfig {
  target: string;
  tlsMode: GrpcTlsMode;
  /** `host[:port]` sent as :authority and used as the TLS server name; null = from the target. */
  authority?: string | null;
  /** Per-call deadline in milliseconds (positive integer). */
  deadlineMs: number;
  /** Largest response message accepted, in bytes; null = grpc-js default (4 MiB). */
  maxInboundMessageBytes?: number | null;
  /** Sent as gRPC metadata with every call. */
  metadata?: Record<string, string> | null;
}

/** Deployment-wide TLS material (file paths, PEM). */
export interface GrpcDeploymentTls {
  /** Extra CA bundle trusted in addition to the system roots (SYSTEM_TRUST and MTLS). */
  caFile?: string;
  /** Client certificate chain for MTLS. */
  certFile?: string;
  /** Private key of the client certificate for MTLS. */
  keyFile?: string;
}

/** Environment variables holding the deployment's gRPC TLS material (paths to PEM files). */
export const GRPC_TLS_ENV = {
  caFile: 'GRPC_CA_FILE',
  certFile: 'GRPC_CLIENT_CERT_FILE',
  keyFile: 'GRPC_CLIENT_KEY_FILE',
} as const;

/**
 * The deployment's gRPC TLS settings from the environment: GRPC_CA_FILE (extra trusted CA),
 * GRPC_CLIENT_CERT_FILE and GRPC_CLIENT_KEY_FILE (client certificate for MTLS). Used when a caller
 * passes no explicit settings to {@link validateGrpcClientConfig} or `createEngineClient`.
 */
export function grpcDeploymentTlsFromEnv(env: NodeJS.ProcessEnv = process.env): GrpcDeploymentTls {
  const out: GrpcDeploymentTls = {};
  for (const [field, name] of Object.entries(GRPC_TLS_ENV) as [keyof GrpcDeploymentTls, string][]) {
    const v = env[name]?.trim();
    if (v) out[field] = v;
  }
  return out;
}

const MAX_INT32 = 2_147_483_647;
const METADATA_KEY = /^[0-9a-z_.-]+$/;
/** Headers gRPC or HTTP/2 own; a configured value would be ignored or break the call. */
const RESERVED_METADATA_KEYS = new Set(['content-type', 'te', 'host', 'user-agent', 'connection', 'content-length', 'transfer-encoding', 'upgrade', 'keep-alive', 'proxy-connection']);

/** Problems with one metadata entry (empty = valid). */
export function metadataEntryProblems(key: string, value: unknown): string[] {
  const out: string[] = [];
  if (key.length === 0) out.push('metadata key must not be empty');
  else if (!METADATA_KEY.test(key)) {
    out.push(`metadata key '${key}' must contain only lowercase letters, digits, '-', '_' and '.'`);
  } else if (key.startsWith('grpc-')) out.push(`metadata key '${key}' must not start with 'grpc-' (reserved by gRPC)`);
  else if (key.endsWith('-bin')) out.push(`metadata key '${key}' must not end with '-bin' (binary metadata is not supported)`);
  else if (RESERVED_METADATA_KEYS.has(key)) out.push(`metadata key '${key}' is a reserved HTTP/2 or gRPC header`);
  if (typeof value !== 'string') out.push(`metadata value of '${key}' must be a string`);
  else if (!/^[\x20-\x7e]*$/.test(value)) {
    out.push(`metadata value of '${key}' must contain only printable ASCII characters`);
  } else if (value.length > 8192) out.push(`metadata value of '${key}' is longer than 8192 characters`);
  return out;
}

/** Problems with an authority override (empty = valid): `host[:port]`. */
export function authorityProblems(authority: string): string[] {
  if (authority.length === 0) return ['authority must not be empty (omit it to use the target)'];
  const hp = parseHostPort(authority, false);
  if (typeof hp === 'string') return [`authority ${hp}`];
  if (!isIPv4(hp.host) && !hp.host.includes(':') && !isValidHostname(hp.host)) {
    return [`authority '${authority}' is not a valid host[:port]`];
  }
  return [];
}

/**
 * Every problem with a model's gRPC configuration as human-readable sentences (empty = valid).
 * An MTLS configuration is invalid when the deployment has no client certificate and key
 * configured: `tls` defaults to {@link grpcDeploymentTlsFromEnv}.
 */
export function validateGrpcClientConfig(c: GrpcClientConfig, tls: GrpcDeploymentTls = grpcDeploymentTlsFromEnv()): string[] {
  const problems: string[] = [];
  try {
    parseGrpcTarget(c.target);
  } catch (e) {
    if (e instanceof GrpcTargetError) problems.push(`invalid gRPC target: ${e.message}`);
    else throw e;
  }
  if (!GRPC_TLS_MODES.includes(c.tlsMode)) {
    problems.push(`tlsMode must be one of ${GRPC_TLS_MODES.join(', ')}`);
  } else if (c.tlsMode === 'MTLS' && (!tls.certFile || !tls.keyFile)) {
    problems.push('tlsMode MTLS requires a client certificate and key in the deployment settings, and none are configured');
  }
  if (c.authority !== undefined && c.authority !== null) {
    if (typeof c.authority !== 'string') problems.push('authority must be a string');
    else problems.push(...authorityProblems(c.authority));
  }
  if (typeof c.deadlineMs !== 'number' || !Number.isInteger(c.deadlineMs) || c.deadlineMs <= 0) {
    problems.push('deadlineMs must be a positive integer (milliseconds)');
  } else if (c.deadlineMs > MAX_INT32) problems.push(`deadlineMs must be at most ${MAX_INT32}`);
  const max = c.maxInboundMessageBytes;
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isInteger(max) || max <= 0) {
      problems.push('maxInboundMessageBytes must be a positive integer (bytes) when set');
    } else if (max > MAX_INT32) problems.push(`maxInboundMessageBytes must be at most ${MAX_INT32}`);
  }
  if (c.metadata !== undefined && c.metadata !== null) {
    if (typeof c.metadata !== 'object' || Array.isArray(c.metadata)) problems.push('metadata must be an object of string values');
    else for (const [k, v] of Object.entries(c.metadata)) problems.push(...metadataEntryProblems(k, v));
  }
  return problems;
}
