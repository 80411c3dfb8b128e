import { readEdgeEpoch, type Database, type Redis } from '@voxgate/kit';
import type { EffectiveRateLimits } from './catalogue';
import { LimitsService } from './limits.service';

const CACHE_LIMIT = 10_000;

/**
 * The edge asks for a caller's effective limits on every request (globalRequests). Like the
 * tenancy authenticator, this is the billing domain's own code run by the edge, cached until the
 * edge epoch moves (any change of plans, subscriptions, overrides or defaults).
 */
export class EffectiveLimitsReader {
  private epoch = -1;
  private readonly cache = new Map<string, EffectiveRateLimits>();
  private readonly service: LimitsService;

  constructor(db: Database, private readonly redis: Redis) {
    this.service = new LimitsService({ db, txDb: db, redis });
  }

  /** `epoch`: the edge epoch already read for this request, if any. */
  async rateLimits(tenantId: string, userId: string, given?: string): Promise<EffectiveRateLimits> {
    const epoch = Number(given ?? (await readEdgeEpoch(this.redis)));
    // epochs only grow: a request that read an older one must not roll the cache back
    if (epoch > this.epoch) {
      this.cache.clear();
      this.epoch = epoch;
    }
    const key = `${tenantId}:${userId}`;
    const hit = epoch === this.epoch ? this.cache.get(key) : undefined;
    if (hit) return hit;
    const fresh = (await this.service.effective(tenantId, userId)).rateLimits;
    // cached only if no change moved the epoch while it was read
    if (epoch === this.epoch) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, fresh);
    }
    return fresh;
  }
}
