import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

// Mirrors the root global setup's declaration so these tests typecheck on their own.
declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

/** Connections opened through here are closed by `closeAll` (called from afterAll). */
export function redisPool(): { connect(): Redis; closeAll(): Promise<void> } {
  const opened: Redis[] = [];
  return {
    connect(): Redis {
      const r = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 2 });
      opened.push(r);
      return r;
    },
    async closeAll(): Promise<void> {
      await Promise.all(opened.map((r) => r.quit().catch(() => r.disconnect())));
    },
  };
}

export function uniquePrefix(name: string): string {
  return `test:limits:${name}:${randomUUID()}:`;
}

export async function redisNowMs(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/**
 * Waits (by the Redis clock, like the limiter) until at least `needMs` remain in the current
 * window, so a burst under test cannot straddle a boundary and legitimately see two budgets.
 */
export async function waitForWindowRoom(redis: Redis, windowSeconds: number, needMs: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - ((await redisNowMs(redis)) % windowMs);
  if (left < needMs) await sleep(left + 25);
}

/** Sleeps until the current window (by the Redis clock) has ended. */
export async function waitForNextWindow(redis: Redis, windowSeconds: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  await sleep(windowMs - ((await redisNowMs(redis)) % windowMs) + 25);
}
