import type { Redis } from 'ioredis';

/**
 * Edges cache what they read from the domains (credentials, effective limits) until this counter
 * moves. Every domain bumps the same key on a change that matters to the edge, so an edge reads
 * one key per request however many caches it keeps.
 */
export const EDGE_EPOCH_KEY = 'vxg:edge:epoch';

export async function bumpEdgeEpoch(redis: Redis): Promise<void> {
  await redis.incr(EDGE_EPOCH_KEY);
}

export async function readEdgeEpoch(redis: Redis): Promise<string> {
  return (await redis.get(EDGE_EPOCH_KEY)) ?? '0';
}
