import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LUA_NOW_MS, LuaScript, integerReply } from './lua-script';

export interface Lease {
  readonly id: string;
  readonly key: string;
  /** Pushes the expiry to now + leaseMs. false when the lease is already gone (expired, evicted or released). */
  renew(): Promise<boolean>;
  /** Frees the slot. Idempotent. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  leaseMs?: number;
  /** the holder's id (default: random), so that whoever knows the holder can free its slot ({@link ConcurrencyLimiter.releaseHolder}) */
  id?: string;
  autoRenew?: boolean;
  /** Called once when an automatic renewal finds the lease gone (e.g. the process stalled past leaseMs). */
  onLost?: (lease: Lease) => void;
}

// Members whose expiry score is <= now are dead; removing them inside the same script that counts
// is what lets a crashed holder's slot come back without any cleanup process.
const PRUNE = `redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', nowMs))`;

// The set key lives exactly as long as its longest lease, so abandoned keys do not accumulate.
const EXTEND_KEY_TTL = `
local __top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if __top[2] then redis.call('PEXPIREAT', KEYS[1], __top[2]) end
`;

/** ARGV: limit, leaseMs, id. Reply: { acquired 0|1 }. */
const ACQUIRE = new LuaScript(`
local limit = tonumber(ARGV[1])
local leaseMs = tonumber(ARGV[2])
${LUA_NOW_MS}
${PRUNE}
if redis.call('ZCARD', KEYS[1]) >= limit then return {0} end
redis.call('ZADD', KEYS[1], string.format('%.0f', nowMs + leaseMs), ARGV[3])
${EXTEND_KEY_TTL}
return {1}
`);

/**
 * ARGV: leaseMs, id. Reply: { renewed 0|1 }. A lease that has expired is not revived even if its
 * member is still present: its slot may already have been counted as free by another replica's
 * acquire (which prunes lazily), so reviving it could put limit + 1 holders in.
 */
const RENEW = new LuaScript(`
local leaseMs = tonumber(ARGV[1])
${LUA_NOW_MS}
local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not score then return {0} end
if tonumber(score) <= nowMs then
  redis.call('ZREM', KEYS[1], ARGV[2])
  return {0}
end
redis.call('ZADD', KEYS[1], 'XX', string.format('%.0f', nowMs + leaseMs), ARGV[2])
${EXTEND_KEY_TTL}
return {1}
`);

/** Read-only: live holders by the Redis clock, without pruning. Reply: { count }. */
const COUNT = new LuaScript(`
${LUA_NOW_MS}
return {redis.call('ZCOUNT', KEYS[1], '(' .. string.format('%.0f', nowMs), '+inf')}
`);

export class ConcurrencyLimiter {
  private readonly prefix: string;
  private readonly leaseMs: number;

  constructor(private readonly redis: Redis, options: { prefix?: string; leaseMs?: number } = {}) {
    this.prefix = options.prefix ?? 'vxg:cc:';
    this.leaseMs = validLeaseMs(options.leaseMs ?? 30_000);
  }

  /** A slot, or null when `limit` slots are held. With autoRenew (default true) the lease is renewed every leaseMs/3 until released (timer unref'd). */
  async acquire(key: string, limit: number, options: AcquireOptions = {}): Promise<Lease | null> {
    if (!Number.isFinite(limit)) throw new RangeError(`concurrency limit must be a finite number, got ${limit}`);
    const leaseMs = validLeaseMs(options.leaseMs ?? this.leaseMs);
    const slots = Math.floor(limit);
    if (slots <= 0) return null;
    const id = options.id ?? randomUUID();
    const redisKey = this.redisKey(key);
    const [acquired] = integerReply(await ACQUIRE.run(this.redis, [redisKey], [slots, leaseMs, id]), 1);
    if (acquired !== 1) return null;
    const lease = new RedisLease(this.redis, id, key, redisKey, leaseMs);
    if (options.autoRenew ?? true) lease.startAutoRenew(options.onLost);
    return lease;
  }

  /**
   * Frees a holder's slot without its lease object: the work is known to be over although its
   * process never released it (it crashed). Idempotent.
   */
  async releaseHolder(key: string, id: string): Promise<void> {
    await this.redis.zrem(this.redisKey(key), id);
  }

  /** Number of live (unexpired) holders. */
  async count(key: string): Promise<number> {
    const [n] = integerReply(await COUNT.run(this.redis, [this.redisKey(key)], []), 1);
    return n ?? 0;
  }

  private redisKey(key: string): string {
    return `${this.prefix}${key}`;
  }
}

function validLeaseMs(leaseMs: number): number {
  if (!Number.isFinite(leaseMs) || leaseMs < 3) throw new RangeError(`leaseMs must be a finite number >= 3, got ${leaseMs}`);
  return Math.floor(leaseMs);
}

class RedisLease implements Lease {
  private released = false;
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;

  constructor(
    private readonly redis: Redis,
    readonly id: string,
    readonly key: string,
    private readonly redisKey: string,
    private readonly leaseMs: number,
  ) {}

  async renew(): Promise<boolean> {
    if (this.released) return false;
    const [renewed] = integerReply(await RENEW.run(this.redis, [this.redisKey], [this.leaseMs, this.id]), 1);
    return renewed === 1;
  }

  async release(): Promise<void> {
    this.stopAutoRenew();
    if (this.released) return;
    this.released = true;
    await this.redis.zrem(this.redisKey, this.id);
  }

  startAutoRenew(onLost: ((lease: Lease) => void) | undefined): void {
    // A third of the lease leaves two more attempts before expiry if one renewal fails transiently.
    this.timer = setInterval(() => void this.autoRenewTick(onLost), Math.max(1, Math.floor(this.leaseMs / 3)));
    // The lease must not be the thing keeping a finished process alive.
    this.timer.unref();
  }

  private async autoRenewTick(onLost: ((lease: Lease) => void) | undefined): Promise<void> {
    // A slow Redis must not stack renewals; the next tick retries.
    if (this.renewing || this.released) return;
    this.renewing = true;
    try {
      if (!(await this.renew()) && !this.released) {
        this.stopAutoRenew();
        onLost?.(this);
      }
    } catch {
      // Transient Redis errors: keep ticking, the lease is still valid until its expiry and a later
      // successful call reports the loss if it did expire meanwhile.
    } finally {
      this.renewing = false;
    }
  }

  private stopAutoRenew(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
