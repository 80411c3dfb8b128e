import type { Redis } from '@voxgate/kit';

/**
 * Edges cache resolved credentials per "authn epoch". Any change that can alter what a credential
 * grants (revocation, tenant disable, provider change, role change) bumps the epoch, so every edge
 * process drops its cache on its next request.
 */
export const AUTHN_EPOCH_KEY = 'vxg:authn:epoch';

export async function bumpAuthnEpoch(redis: Redis): Promise<void> {
  await redis.incr(AUTHN_EPOCH_KEY);
}
