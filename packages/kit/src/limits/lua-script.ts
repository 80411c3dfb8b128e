import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run by SHA, falling back to EVAL when the server does not have it cached (first use,
 * after SCRIPT FLUSH, a restart or a failover to a replica that never saw it). Not `defineCommand`,
 * so callers' Redis instances are not mutated and the call stays typed without declaration merging.
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      // EVAL caches the script server-side, so later calls go back to the cheap EVALSHA path.
      return await redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/** Script replies are arrays of integers; anything else means a script/driver mismatch, not a limit decision. */
export function integerReply(reply: unknown, length: number): number[] {
  if (!Array.isArray(reply) || reply.length !== length || !reply.every((v): v is number => typeof v === 'number')) {
    throw new Error(`unexpected Lua reply: ${JSON.stringify(reply)}`);
  }
  return reply;
}

/**
 * Lua fragment: milliseconds from the Redis server clock. Every replica asks the same clock, so
 * windows and lease expiries agree even when the application hosts' clocks are skewed.
 */
export const LUA_NOW_MS = `
local __t = redis.call('TIME')
local nowMs = tonumber(__t[1]) * 1000 + math.floor(tonumber(__t[2]) / 1000)
`;
