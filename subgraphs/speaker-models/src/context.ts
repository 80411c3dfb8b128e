import { forbidden, type BaseContext, type Database, type FixedWindowRateLimiter, type Identity, type Logger, type Redis } from '@voxgate/kit';

export interface SpeakerModelsDeps {
  limiter: FixedWindowRateLimiter | null;
  db: Database;
  txDb: Database;
  redis: Redis;
  log: Logger;
}

export interface SpeakerModelsContext extends BaseContext {
  deps: SpeakerModelsDeps;
}

export function createSpeakerModelsContext(deps: SpeakerModelsDeps, identity: Identity): SpeakerModelsContext {
  return { identity, deps, limiter: deps.limiter };
}

/** Models and aliases are tenant-scoped; every caller acts inside their own tenant. */
export function tenantOf(identity: Identity): string {
  if (!identity.tenantId) throw forbidden('A tenant is required');
  return identity.tenantId;
}
