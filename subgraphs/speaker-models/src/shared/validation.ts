import { badInput, validateGrpcClientConfig, type GrpcClientConfig } from '@voxgate/kit';
import type { ThresholdDefaults } from '../db/schema';

export interface Problem { field: string; message: string }

/** Collects every problem of a request, then answers one 400 listing them all. */
export class Problems {
  readonly list: Problem[] = [];
  add(field: string, message: string): void { this.list.push({ field, message }); }
  throwIfAny(): void {
    const first = this.list[0];
    if (first) throw badInput(`${first.field}: ${first.message}`, { fields: this.list });
  }
}

const NAME_RE = /^[a-z0-9](?:[a-z0-9._-]{0,126}[a-z0-9])?$/;

/** Model and alias names are identifiers clients put in requests and paths. */
export function checkName(p: Problems, field: string, value: unknown): void {
  if (typeof value !== 'string' || !NAME_RE.test(value)) {
    p.add(field, 'must be 1 to 128 lowercase letters, digits, dots, underscores or hyphens, starting and ending with a letter or digit');
  }
}

export function checkText(p: Problems, field: string, value: unknown, max: number, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) p.add(field, 'is required');
    return;
  }
  if (typeof value !== 'string' || (required && value.trim() === '') || value.length > max) {
    p.add(field, required ? `must be 1 to ${max} characters` : `must be at most ${max} characters`);
  }
}

/** BCP-47 tags, checked by the platform's own Intl implementation. */
export function checkLocales(p: Problems, field: string, value: unknown, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) p.add(field, 'is required and must be non-empty');
    return;
  }
  if (!Array.isArray(value) || value.length === 0) {
    p.add(field, 'must be a non-empty list of BCP-47 language tags');
    return;
  }
  for (const tag of value) {
    try {
      if (typeof tag !== 'string' || Intl.getCanonicalLocales(tag).length !== 1) throw new Error('bad');
    } catch {
      p.add(field, `"${String(tag)}" is not a BCP-47 language tag`);
    }
  }
}

export function checkPositiveInt(p: Problems, field: string, value: unknown, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) p.add(field, 'is required');
    return;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) p.add(field, 'must be a positive integer');
}

const MODES = ['strict', 'balanced', 'lenient'] as const;

/** Every threshold in [0, 1], and a review threshold never above its mode's accept threshold. */
export function checkThresholds(p: Problems, field: string, t: ThresholdDefaults | null | undefined): void {
  if (!t) return;
  for (const [k, v] of Object.entries(t)) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) p.add(`${field}.${k}`, 'must be a number from 0.0 to 1.0');
  }
  for (const mode of MODES) {
    const accept = t[`${mode}AcceptThreshold`];
    const review = t[`${mode}ReviewThreshold`];
    if (typeof accept === 'number' && typeof review === 'number' && review > accept) {
      p.add(`${field}.${mode}ReviewThreshold`, `must not exceed ${mode}AcceptThreshold`);
    }
  }
}

/**
 * The gRPC client configuration, checked by the kit's factory rules (target syntax, deadline,
 * message size, metadata keys, authority), so a model that registers is one the factory can dial.
 */
export function checkGrpc(p: Problems, fields: Record<'target' | 'deadlineMs' | 'maxInboundMessageBytes' | 'metadata' | 'authority' | 'tlsMode', string>, c: GrpcClientConfig): void {
  for (const problem of validateGrpcClientConfig(c)) {
    // the kit names the setting at the start of its message; answer with the request's field name
    const key = (Object.keys(fields) as (keyof typeof fields)[]).find((k) => k !== 'target' && problem.toLowerCase().startsWith(k.toLowerCase()))
      ?? (problem.startsWith('MTLS') ? 'tlsMode' : 'target');
    p.add(fields[key], problem);
  }
}

export const SENTVER_GRPC_FIELDS = {
  target: 'grpcTarget', deadlineMs: 'grpcDeadlineMs', maxInboundMessageBytes: 'grpcMaxInboundMessageBytes',
  metadata: 'grpcMetadata', authority: 'grpcAuthority', tlsMode: 'grpcTlsMode',
} as const;
export const EMBEDDING_GRPC_FIELDS = {
  target: 'grpc.target', deadlineMs: 'grpc.deadlineMs', maxInboundMessageBytes: 'grpc.maxInboundMessageBytes',
  metadata: 'grpc.metadata', authority: 'grpc.authority', tlsMode: 'grpc.tlsMode',
} as const;
