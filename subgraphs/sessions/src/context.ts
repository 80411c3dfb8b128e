import { forbidden, type BaseContext, type BlobStore, type Database, type FixedWindowRateLimiter, type Identity, type Logger, type Redis } from '@voxgate/kit';

export interface SessionsDeps {
  limiter: FixedWindowRateLimiter | null;
  db: Database;
  txDb: Database;
  redis: Redis;
  log: Logger;
  blobs: BlobStore;
}

export interface SessionsContext extends BaseContext {
  deps: SessionsDeps;
}

export function createSessionsContext(deps: SessionsDeps, identity: Identity): SessionsContext {
  return { identity, deps, limiter: deps.limiter };
}

/** Sessions belong to a tenant and a user; anonymous callers have neither. */
export function callerOf(identity: Identity): { tenantId: string; userId: string } {
  if (!identity.tenantId || !identity.userId) throw forbidden('A signed-in user is required');
  return { tenantId: identity.tenantId, userId: identity.userId };
}
