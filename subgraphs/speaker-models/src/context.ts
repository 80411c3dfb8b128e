import { forbidden, type BaseContext, type Database, type FixedWindowRateLimiter, type Identity, type Logger, type Redis } from '@voxgate/kit';

export interface SpeakerModelsDeps {
  limiter: FixedWindowRateLimiter | null;
  db: Database;
  txDb: Database;
  redis: Redis;
  log: Logger;
  /**
   * The platform's reference ASR engine, when it runs one (e.g. `{ target: '127.0.0.1:50061' }`):
   * every tenant then gets a model and a default alias for it once (see seeding.ts). Null or
   * absent: nothing is seeded.
   */
  asrReferenceEngine?: { target: string } | null;
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
