import type { Database, Redis } from '@voxgate/kit';
import { LIMITS_EPOCH_KEY } from '../context';
import type { EffectiveRateLimits } from './catalogue';
import { LimitsService } from './limits.service';

const CACHE_LIMIT = 10_000;

/**
 * The edge asks for a caller's effective limits on every request (globalRequests). Like the
 * tenancy authenticator, this is the billing domain's own code run by the edge, cached until the
 * limits epoch moves (any change of plans, subscriptions, overrides or defaults).
 */
export class EffectiveLimitsReader {
  private epoch: string | null = null;
  private readonly cache = new Map<string, EffectiveRateLimits>();
  private readonly service: LimitsService;

  constructor(db: Database, private readonly redis: Redis) {
    this.service = new LimitsService({ db, txDb: db, redis });
  }

  async rateLimits(tenantId: string, userId: string): Promise<EffectiveRateLimits> {
    const epoch = (await this.redis.get(LIMITS_EPOCH_KEY)) ?? '0';
    if (epoch !== this.epoch) {
      this.cache.clear();
      this.epoch = epoch;
    }
    const key = `${tenantId}:${userId}`;
    let hit = this.cache.get(key);
    if (!hit) {
      hit = (await this.service.effective(tenantId, userId)).rateLimits;
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, hit);
    }
    return hit;
  }
}
