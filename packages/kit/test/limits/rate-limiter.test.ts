import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { FixedWindowRateLimiter, rateLimitHeaders, type RateLimitDecision } from '../../src/limits';
import { LuaScript } from '../../src/limits/lua-script';
import { redisNowMs, redisPool, uniquePrefix, waitForNextWindow, waitForWindowRoom } from './helpers';

const pool = redisPool();
afterAll(() => pool.closeAll());

const allowedCount = (ds: RateLimitDecision[]): number => ds.filter((d) => d.allowed).length;

describe('FixedWindowRateLimiter', () => {
  it('lets exactly `limit` of 200 concurrent hits through, and refused hits leave the next window full', async () => {
    const redis = pool.connect();
    const limiter = new FixedWindowRateLimiter(redis, { prefix: uniquePrefix('rl-burst') });
    await waitForWindowRoom(redis, 2, 1500);
    const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.hit('tenant-a', 10, { windowSeconds: 2 })));
    expect(allowedCount(decisions)).toBe(10);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.retryAfterSeconds >= 1)).toBe(true);

    await waitForNextWindow(redis, 2);
    await waitForWindowRoom(redis, 2, 1500);
    const next = await Promise.all(Array.from({ length: 11 }, () => limiter.hit('tenant-a', 10, { windowSeconds: 2 })));
    expect(allowedCount(next)).toBe(10);
  });

  it('lets exactly `limit` through when 200 concurrent hits come from two replicas (separate connections)', async () => {
    const replicaA = pool.connect();
    const replicaB = pool.connect();
    const prefix = uniquePrefix('rl-replicas');
    const a = new FixedWindowRateLimiter(replicaA, { prefix });
    const b = new FixedWindowRateLimiter(replicaB, { prefix });
    await waitForWindowRoom(replicaA, 2, 1500);
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).hit('tenant-b', 10, { windowSeconds: 2 })),
    );
    expect(allowedCount(decisions)).toBe(10);
    expect(allowedCount(decisions.filter((_, i) => i % 2 === 0)) + allowedCount(decisions.filter((_, i) => i % 2 === 1))).toBe(10);

    await waitForNextWindow(replicaA, 2);
    await waitForWindowRoom(replicaA, 2, 1500);
    const next = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? a : b).hit('tenant-b', 10, { windowSeconds: 2 })));
    expect(allowedCount(next)).toBe(10);
  });

  it('does not consume budget for a refused hit within the window (cost > 1)', async () => {
    const redis = pool.connect();
    const limiter = new FixedWindowRateLimiter(redis, { prefix: uniquePrefix('rl-cost') });
    await waitForWindowRoom(redis, 10, 3000);
    const first = await limiter.hit('k', 10, { windowSeconds: 10, cost: 7 });
    expect(first).toMatchObject({ allowed: true, remaining: 3, retryAfterSeconds: 0 });
    const tooBig = await limiter.hit('k', 10, { windowSeconds: 10, cost: 5 });
    expect(tooBig).toMatchObject({ allowed: false, remaining: 0 });
    expect((await limiter.peek('k', 10, { windowSeconds: 10 })).remaining).toBe(3);
    const fits = await limiter.hit('k', 10, { windowSeconds: 10, cost: 3 });
    expect(fits).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.hit('k', 10, { windowSeconds: 10 })).allowed).toBe(false);
  });

  it('reports remaining counting down, retryAfter only when refused, and resetSeconds within the aligned window', async () => {
    const redis = pool.connect();
    const limiter = new FixedWindowRateLimiter(redis, { prefix: uniquePrefix('rl-fields') });
    const windowSeconds = 10;
    await waitForWindowRoom(redis, windowSeconds, 3000);
    const seen: RateLimitDecision[] = [];
    for (let i = 0; i < 4; i++) seen.push(await limiter.hit('k', 3, { windowSeconds }));
    expect(seen.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(seen.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(seen.map((d) => d.retryAfterSeconds > 0)).toEqual([false, false, false, true]);
    for (const d of seen) {
      expect(d.limit).toBe(3);
      expect(d.windowSeconds).toBe(windowSeconds);
      expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
      expect(d.resetSeconds).toBeLessThanOrEqual(windowSeconds);
    }
    const refused = seen[3]!;
    expect(refused.retryAfterSeconds).toBe(refused.resetSeconds);
    // Alignment to wall-clock multiples of the window: resetSeconds matches the Redis clock's view.
    const nowMs = await redisNowMs(redis);
    const expectedReset = Math.ceil((windowSeconds * 1000 - (nowMs % (windowSeconds * 1000))) / 1000);
    expect(Math.abs(refused.resetSeconds - expectedReset)).toBeLessThanOrEqual(1);
  });

  it('peek reports state without consuming', async () => {
    const redis = pool.connect();
    const limiter = new FixedWindowRateLimiter(redis, { prefix: uniquePrefix('rl-peek') });
    await waitForWindowRoom(redis, 10, 3000);
    expect(await limiter.peek('k', 2, { windowSeconds: 10 })).toMatchObject({ allowed: true, remaining: 2, retryAfterSeconds: 0 });
    await limiter.peek('k', 2, { windowSeconds: 10 });
    expect((await limiter.hit('k', 2, { windowSeconds: 10 })).remaining).toBe(1);
    await limiter.hit('k', 2, { windowSeconds: 10 });
    const closed = await limiter.peek('k', 2, { windowSeconds: 10 });
    expect(closed.allowed).toBe(false);
    expect(closed.remaining).toBe(0);
    expect(closed.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  });

  it('keeps separate counters for different keys and different window lengths', async () => {
    const redis = pool.connect();
    const limiter = new FixedWindowRateLimiter(redis, { prefix: uniquePrefix('rl-isolation') });
    await waitForWindowRoom(redis, 10, 3000);
    expect((await limiter.hit('a', 1, { windowSeconds: 10 })).allowed).toBe(true);
    expect((await limiter.hit('a', 1, { windowSeconds: 10 })).allowed).toBe(false);
    expect((await limiter.hit('b', 1, { windowSeconds: 10 })).allowed).toBe(true);
    expect((await limiter.hit('a', 1, { windowSeconds: 3600 })).allowed).toBe(true);
  });

  it('refuses everything when limit <= 0 and rejects a non-finite limit', async () => {
    const limiter = new FixedWindowRateLimiter(pool.connect(), { prefix: uniquePrefix('rl-bounds') });
    const zero = await limiter.hit('k', 0);
    expect(zero).toMatchObject({ allowed: false, remaining: 0, limit: 0, windowSeconds: 60 });
    expect(zero.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((await limiter.hit('k', -5)).allowed).toBe(false);
    await expect(limiter.hit('k', Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    await expect(limiter.hit('k', Number.NaN)).rejects.toThrow(RangeError);
    await expect(limiter.peek('k', Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    await expect(limiter.hit('k', 5, { cost: 0 })).rejects.toThrow(RangeError);
    await expect(limiter.hit('k', 5, { windowSeconds: 0 })).rejects.toThrow(RangeError);
  });

  it('falls back to EVAL when the server does not know the script (NOSCRIPT), then uses the cached SHA', async () => {
    const redis = pool.connect();
    // A source no server has seen, so the first EVALSHA must miss without flushing the shared cache.
    const script = new LuaScript(`-- ${randomUUID()}\nreturn {tonumber(ARGV[1]) + 1}`);
    expect(await redis.script('EXISTS', script.sha)).toEqual([0]);
    expect(await script.run(redis, [], [41])).toEqual([42]);
    expect(await redis.script('EXISTS', script.sha)).toEqual([1]);
    expect(await script.run(redis, [], [1])).toEqual([2]);
  });
});

describe('rateLimitHeaders', () => {
  const base: RateLimitDecision = { allowed: true, limit: 100, remaining: 42, resetSeconds: 17, retryAfterSeconds: 0, windowSeconds: 60 };

  it('formats RateLimit-Policy and RateLimit as structured fields, without Retry-After when allowed', () => {
    expect(rateLimitHeaders('default', base)).toEqual({
      'RateLimit-Policy': '"default";q=100;w=60',
      RateLimit: '"default";r=42;t=17',
    });
  });

  it('adds Retry-After when refused', () => {
    const refused = { ...base, allowed: false, remaining: 0, retryAfterSeconds: 17 };
    expect(rateLimitHeaders('per-tenant', refused)).toEqual({
      'RateLimit-Policy': '"per-tenant";q=100;w=60',
      RateLimit: '"per-tenant";r=0;t=17',
      'Retry-After': '17',
    });
  });

  it('escapes the policy name as an sf-string and rejects header-breaking characters', () => {
    expect(rateLimitHeaders('a"b\\c', base).RateLimit).toBe('"a\\"b\\\\c";r=42;t=17');
    expect(() => rateLimitHeaders('x\r\nSet-Cookie: y', base)).toThrow(RangeError);
  });
});
