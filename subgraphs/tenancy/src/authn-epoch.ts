import { bumpEdgeEpoch, type Redis } from '@voxgate/kit';

/**
 * Any change that can alter what a credential grants (revocation, tenant disable, provider change,
 * a first login) moves the edge epoch, so every edge drops its cached lookups on its next request.
 */
export async function bumpAuthnEpoch(redis: Redis): Promise<void> {
  await bumpEdgeEpoch(redis);
}
