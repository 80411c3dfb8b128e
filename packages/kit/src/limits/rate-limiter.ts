import type { Redis } from 'ioredis';
import { LUA_NOW_MS, LuaScript, integerReply } from './lua-script';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Budget left in the window after this hit (0 when refused). */
  remaining: number;
  /** Seconds until the window ends (>= 1). */
  resetSeconds: number;
  /** 0 when allowed, else seconds until the window ends (>= 1). */
  retryAfterSeconds: number;
  windowSeconds: number;
}

export interface RateLimitHitOptions {
  windowSeconds?: number;
  cost?: number;
}

export interface RateLimitPeekOptions {
  windowSeconds?: number;
}

const DEFAULT_WINDOW_SECONDS = 60;

/**
 * One script does read-decide-write so concurrent hits from any number of replicas serialize in
 * Redis: check-then-INCR from the client would let a burst overshoot the limit.
 *
 * The hash stores the window start next to the count instead of minting one key per window, so the
 * only key touched is the declared KEYS[1] (cluster-safe) and a stale counter from the previous
 * window is recognised exactly, independent of when Redis gets round to expiring it.
 *
 * ARGV: limit, windowSeconds, cost (0 = peek: decide as for a single hit, write nothing).
 * Reply: { allowed 0|1, used after this call, resetSeconds }.
 */
const FIXED_WINDOW = new LuaScript(`
local limit = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2]) * 1000
local cost = tonumber(ARGV[3])
${LUA_NOW_MS}
local startMs = nowMs - (nowMs % windowMs)
local endMs = startMs + windowMs
local resetSeconds = math.ceil((endMs - nowMs) / 1000)
if resetSeconds < 1 then resetSeconds = 1 end
local used = 0
local stored = redis.call('HMGET', KEYS[1], 'w', 'n')
if tonumber(stored[1]) == startMs then used = tonumber(stored[2]) or 0 end
if cost == 0 then
  if limit > 0 and used < limit then return {1, used, resetSeconds} end
  return {0, used, resetSeconds}
end
-- A refused hit writes nothing: clients hammering a closed window must not push it further shut.
if limit <= 0 or used + cost > limit then return {0, used, resetSeconds} end
used = used + cost
redis.call('HSET', KEYS[1], 'w', string.format('%.0f', startMs), 'n', used)
redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', endMs))
return {1, used, resetSeconds}
`);

export class FixedWindowRateLimiter {
  private readonly prefix: string;

  constructor(private readonly redis: Redis, options: { prefix?: string } = {}) {
    this.prefix = options.prefix ?? 'vxg:rl:';
  }

  /** Counts one hit (or `cost`) for `key` in the current window of `windowSeconds` (default 60). A refused hit does NOT consume budget. */
  async hit(key: string, limit: number, options: RateLimitHitOptions = {}): Promise<RateLimitDecision> {
    const cost = options.cost ?? 1;
    if (!Number.isInteger(cost) || cost < 1) throw new RangeError(`rate limit cost must be a positive integer, got ${cost}`);
    return this.run(key, limit, options.windowSeconds, cost);
  }

  /** Current state without consuming. `allowed` says whether a hit of cost 1 would pass now. */
  async peek(key: string, limit: number, options: RateLimitPeekOptions = {}): Promise<RateLimitDecision> {
    return this.run(key, limit, options.windowSeconds, 0);
  }

  private async run(key: string, limit: number, windowSecondsOpt: number | undefined, cost: number): Promise<RateLimitDecision> {
    if (!Number.isFinite(limit)) throw new RangeError(`rate limit must be a finite number, got ${limit}`);
    const windowSeconds = windowSecondsOpt ?? DEFAULT_WINDOW_SECONDS;
    if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
      throw new RangeError(`rate limit windowSeconds must be a positive integer, got ${windowSeconds}`);
    }
    // Budgets are whole hits; a fractional limit would make "remaining" meaningless.
    const effectiveLimit = Math.max(0, Math.floor(limit));
    // The window length is part of the key so two policies on one subject (per minute, per hour) never share a counter.
    const redisKey = `${this.prefix}${key}:${windowSeconds}s`;
    const reply = await FIXED_WINDOW.run(this.redis, [redisKey], [effectiveLimit, windowSeconds, cost]);
    const [allowedFlag, used, resetSeconds] = integerReply(reply, 3) as [number, number, number];
    const allowed = allowedFlag === 1;
    const remaining = cost > 0 && !allowed ? 0 : Math.max(0, effectiveLimit - used);
    return {
      allowed,
      limit: effectiveLimit,
      remaining,
      resetSeconds,
      retryAfterSeconds: allowed ? 0 : resetSeconds,
      windowSeconds,
    };
  }
}

/**
 * Response headers per the IETF httpapi "RateLimit header fields for HTTP" draft
 * (draft-ietf-httpapi-ratelimit-headers-08 onwards), which uses Structured Field syntax (RFC 8941):
 *
 *   RateLimit-Policy: "<name>";q=<limit>;w=<windowSeconds>
 *   RateLimit: "<name>";r=<remaining>;t=<resetSeconds>
 *   Retry-After: <retryAfterSeconds>            (only when refused; RFC 9110 delay-seconds)
 *
 * The policy name is an sf-string: printable ASCII with `"` and `\` backslash-escaped. Anything else
 * (notably CR/LF) is rejected rather than dropped, since a silently altered name would no longer
 * match the policy the client sees elsewhere and a raw newline would be header injection.
 */
export function rateLimitHeaders(policyName: string, d: RateLimitDecision): Record<string, string> {
  const name = sfString(policyName);
  const headers: Record<string, string> = {
    'RateLimit-Policy': `${name};q=${d.limit};w=${d.windowSeconds}`,
    RateLimit: `${name};r=${d.remaining};t=${d.resetSeconds}`,
  };
  if (!d.allowed) headers['Retry-After'] = String(Math.max(1, d.retryAfterSeconds));
  return headers;
}

function sfString(value: string): string {
  if (!/^[\x20-\x7e]*$/.test(value)) throw new RangeError(`rate limit policy name must be printable ASCII: ${JSON.stringify(value)}`);
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
