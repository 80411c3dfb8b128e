import type { BaseContext, Database, FixedWindowRateLimiter, Logger, Redis } from '@voxgate/kit';
import type { Identity } from '@voxgate/kit';
import { createLoaders, type Loaders } from './loaders';

export interface TenancyDeps {
  limiter: FixedWindowRateLimiter | null;
  db: Database;
  /** the transaction pool (see connectDatabase) */
  txDb: Database;
  redis: Redis;
  log: Logger;
}

export interface TenancyContext extends BaseContext {
  deps: TenancyDeps;
  loaders: Loaders;
}

export function createTenancyContext(deps: TenancyDeps, identity: Identity): TenancyContext {
  return { identity, deps, limiter: deps.limiter, loaders: createLoaders(deps.db) };
}

export const SYSTEM_TENANT = 'system';

export function isSystemCaller(identity: Identity): boolean {
  return identity.tenantName === SYSTEM_TENANT && identity.kind === 'user';
}
