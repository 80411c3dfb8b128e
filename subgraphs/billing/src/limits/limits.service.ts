import { and, eq } from 'drizzle-orm';
import type { Identity } from '@voxgate/kit';
import { bumpLimitsEpoch, tenantOf, type BillingStores } from '../context';
import { tenantLimits, userLimits } from '../db/schema';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { validateQuotas, validateRateLimits } from '../validation';
import type { EffectiveQuotas, EffectiveRateLimits, QuotaValues, RateLimitValues } from './catalogue';
import { mergeRateLimits, quotaLayer, rateLimitLayer, resolveQuotas, resolveRateLimits } from './resolve';

export interface LimitLayers {
  user: { rateLimits: RateLimitValues; quotas: QuotaValues } | null;
  plan: { rateLimits: RateLimitValues | null; quotas: QuotaValues | null } | null;
  tenant: { rateLimits: RateLimitValues; quotas: QuotaValues } | null;
}

export class LimitsService {
  constructor(private readonly deps: BillingStores) {}

  async layers(tenantId: string, userId: string | null): Promise<LimitLayers> {
    const [tenantRow] = await this.deps.db.select().from(tenantLimits).where(eq(tenantLimits.tenantId, tenantId));
    let user: LimitLayers['user'] = null;
    let plan: LimitLayers['plan'] = null;
    if (userId) {
      const [row] = await this.deps.db.select().from(userLimits).where(and(eq(userLimits.tenantId, tenantId), eq(userLimits.userId, userId)));
      user = row ?? null;
      const sub = await new SubscriptionsService(this.deps).current(tenantId, userId);
      plan = sub ? { rateLimits: sub.plan.rateLimits, quotas: sub.plan.quotas } : null;
    }
    return { user, plan, tenant: tenantRow ?? null };
  }

  /** Resolution order: user override, subscription plan, tenant default, platform default. */
  async effective(tenantId: string, userId: string | null): Promise<{ rateLimits: EffectiveRateLimits; quotas: EffectiveQuotas }> {
    const l = await this.layers(tenantId, userId);
    return {
      rateLimits: resolveRateLimits(l.user?.rateLimits, l.plan?.rateLimits, l.tenant?.rateLimits),
      quotas: resolveQuotas(l.user?.quotas, l.plan?.quotas, l.tenant?.quotas),
    };
  }

  /** The tenant level as set: null fields inherit the platform default (GET /rate-limits shows the result). */
  async tenantDefaults(identity: Identity): Promise<RateLimitValues> {
    return this.tenantDefaultsOf(tenantOf(identity));
  }

  async tenantDefaultsOf(tenantId: string): Promise<RateLimitValues> {
    const l = await this.layers(tenantId, null);
    return rateLimitLayer(l.tenant?.rateLimits);
  }

  async patchTenantDefaults(identity: Identity, patch: RateLimitValues): Promise<RateLimitValues> {
    validateRateLimits(patch);
    const tenantId = tenantOf(identity);
    const stored = await this.deps.txDb.transaction(async (tx) => {
      await tx.insert(tenantLimits).values({ tenantId }).onConflictDoNothing();
      const [row] = await tx.select().from(tenantLimits).where(eq(tenantLimits.tenantId, tenantId)).for('update');
      const rateLimits = mergeRateLimits(row?.rateLimits ?? {}, patch);
      await tx.update(tenantLimits).set({ rateLimits, updatedAt: new Date() }).where(eq(tenantLimits.tenantId, tenantId));
      return rateLimits;
    });
    await bumpLimitsEpoch(this.deps.redis);
    return rateLimitLayer(stored);
  }

  async quotaDefaults(identity: Identity): Promise<QuotaValues> {
    const l = await this.layers(tenantOf(identity), null);
    return quotaLayer(l.tenant?.quotas);
  }

  async patchQuotaDefaults(identity: Identity, patch: QuotaValues): Promise<QuotaValues> {
    validateQuotas(patch);
    const tenantId = tenantOf(identity);
    const stored = await this.deps.txDb.transaction(async (tx) => {
      await tx.insert(tenantLimits).values({ tenantId }).onConflictDoNothing();
      const [row] = await tx.select().from(tenantLimits).where(eq(tenantLimits.tenantId, tenantId)).for('update');
      const quotas = mergeQuotas(row?.quotas ?? {}, patch);
      await tx.update(tenantLimits).set({ quotas, updatedAt: new Date() }).where(eq(tenantLimits.tenantId, tenantId));
      return quotas;
    });
    await bumpLimitsEpoch(this.deps.redis);
    return quotaLayer(stored);
  }

  async userOverrides(tenantId: string, userId: string): Promise<{ rateLimits: RateLimitValues; quotas: QuotaValues }> {
    const [row] = await this.deps.db.select().from(userLimits).where(and(eq(userLimits.tenantId, tenantId), eq(userLimits.userId, userId)));
    return { rateLimits: row?.rateLimits ?? {}, quotas: row?.quotas ?? {} };
  }

  async patchUserOverrides(tenantId: string, userId: string, patch: { rateLimits?: RateLimitValues; quotas?: QuotaValues }): Promise<{ rateLimits: RateLimitValues; quotas: QuotaValues }> {
    if (patch.rateLimits) validateRateLimits(patch.rateLimits, 'rateLimits.');
    if (patch.quotas) validateQuotas(patch.quotas, 'quotas.');
    const result = await this.deps.txDb.transaction(async (tx) => {
      await tx.insert(userLimits).values({ tenantId, userId }).onConflictDoNothing();
      const [row] = await tx.select().from(userLimits).where(and(eq(userLimits.tenantId, tenantId), eq(userLimits.userId, userId))).for('update');
      const rateLimits = patch.rateLimits ? mergeRateLimits(row?.rateLimits ?? {}, patch.rateLimits) : (row?.rateLimits ?? {});
      const quotas = patch.quotas ? mergeQuotas(row?.quotas ?? {}, patch.quotas) : (row?.quotas ?? {});
      await tx.update(userLimits).set({ rateLimits, quotas, updatedAt: new Date() }).where(and(eq(userLimits.tenantId, tenantId), eq(userLimits.userId, userId)));
      return { rateLimits, quotas };
    });
    await bumpLimitsEpoch(this.deps.redis);
    return result;
  }
}

function mergeQuotas(current: QuotaValues, patch: QuotaValues): QuotaValues {
  const next: Record<string, Record<string, number | null> | undefined> = { ...(current as Record<string, Record<string, number | null>>) };
  for (const [group, fields] of Object.entries(patch as Record<string, Record<string, number | null | undefined> | null | undefined>)) {
    if (fields === undefined) continue;
    if (fields === null) { delete next[group]; continue; }
    const merged: Record<string, number | null> = { ...(next[group] ?? {}) };
    for (const [field, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      if (value === null) delete merged[field];
      else merged[field] = value;
    }
    next[group] = merged;
  }
  return next as QuotaValues;
}
