import type { MiddlewareFn } from 'type-graphql';
import { appError } from '../errors';
import type { Identity } from '../identity';
import type { RateLimitGroup } from './catalogue';
import { PLATFORM_RATE_LIMITS, RATE_LIMIT_GROUPS, RATE_LIMIT_WINDOW_SECONDS, type NonCounterField } from './catalogue';
import type { FixedWindowRateLimiter, RateLimitDecision } from './rate-limiter';

type FieldOf<G extends RateLimitGroup> = (typeof RATE_LIMIT_GROUPS)[G][number];
/** Only the counted limits can be enforced per operation; ceilings have their own mechanisms. */
type CounterOf<G extends RateLimitGroup> = Exclude<FieldOf<G>, NonCounterField>;

/** The caller's effective value of one rate limit (forwarded by the edge), or the platform default. */
export function effectiveLimit<G extends RateLimitGroup>(identity: Identity, group: G, field: FieldOf<G>): number {
  const g = identity.rateLimits?.[group];
  const v = g && typeof g === 'object' ? (g as Record<string, number>)[field] : undefined;
  return typeof v === 'number' ? v : (PLATFORM_RATE_LIMITS[group] as Record<string, number>)[field] ?? 0;
}

export function rateLimitedError(policy: string, d: RateLimitDecision) {
  return appError('RATE_LIMITED', `Rate limit exceeded for ${policy}: ${d.limit} per ${d.windowSeconds} s; retry in ${d.retryAfterSeconds} s`, {
    policy, limit: d.limit, windowSeconds: d.windowSeconds, retryAfterSeconds: d.retryAfterSeconds,
  });
}

/** Counts one operation against the caller's per-minute limit; throws RATE_LIMITED when spent. */
export async function enforceRateLimit<G extends RateLimitGroup>(
  limiter: FixedWindowRateLimiter, identity: Identity, group: G, field: CounterOf<G>, options: { limit?: number } = {},
): Promise<RateLimitDecision> {
  const policy = `${group}.${field}`;
  const limit = options.limit ?? effectiveLimit(identity, group, field);
  const subject = identity.userId ?? `anon:${identity.clientAddress ?? 'unknown'}`;
  const windowSeconds = RATE_LIMIT_WINDOW_SECONDS[field] ?? 60;
  const d = await limiter.hit(`op:${policy}:${subject}`, limit, { windowSeconds });
  if (!d.allowed) throw rateLimitedError(policy, d);
  return d;
}

/** What a subgraph context offers for enforcement. */
export interface LimitedContext {
  identity: Identity;
  limiter: FixedWindowRateLimiter | null;
}

/**
 * `@UseMiddleware(RateLimited('speech-service', 'fileUploads'))` on a resolver: the one mechanism
 * every subgraph uses to enforce the per-minute operation limits of the spec's rate-limit table.
 */
export function RateLimited<G extends RateLimitGroup>(group: G, field: CounterOf<G>): MiddlewareFn<LimitedContext> {
  return async ({ context }, next) => {
    if (context.limiter) await enforceRateLimit(context.limiter, context.identity, group, field);
    return next();
  };
}
