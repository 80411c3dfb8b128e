import { and, eq } from 'drizzle-orm';
import { badInput, conflict, isUniqueViolation, isUuid, notFound, type Identity } from '@voxgate/kit';
import { bumpLimitsEpoch, tenantOf, type BillingStores } from '../context';
import { plans, subscriptions, type PlanRow, type SubscriptionRow } from '../db/schema';

import { addMonths, periodAt } from './period';

export interface SubscriptionWithPlan extends SubscriptionRow {
  plan: PlanRow;
}

export class SubscriptionsService {
  constructor(private readonly deps: BillingStores) {}

  /**
   * The user's ACTIVE subscription, or null. Periods roll over lazily: a subscription read after
   * its period ended is moved to the period containing now (and stays ACTIVE: it renews).
   */
  async current(tenantId: string, userId: string): Promise<SubscriptionWithPlan | null> {
    const [row] = await this.deps.db
      .select({ sub: subscriptions, plan: plans })
      .from(subscriptions)
      .innerJoin(plans, eq(plans.id, subscriptions.planId))
      .where(and(eq(subscriptions.tenantId, tenantId), eq(subscriptions.userId, userId), eq(subscriptions.status, 'ACTIVE')));
    if (!row) return null;
    const now = new Date();
    if (row.sub.currentPeriodEnd.getTime() <= now.getTime()) {
      const period = periodAt(row.sub.currentPeriodStart, now);
      const [rolled] = await this.deps.db.update(subscriptions)
        .set({ currentPeriodStart: period.start, currentPeriodEnd: period.end, updatedAt: now })
        .where(and(eq(subscriptions.id, row.sub.id), eq(subscriptions.currentPeriodEnd, row.sub.currentPeriodEnd)))
        .returning();
      return { ...(rolled ?? { ...row.sub, currentPeriodStart: period.start, currentPeriodEnd: period.end }), plan: row.plan };
    }
    return { ...row.sub, plan: row.plan };
  }

  /** Puts the user on an active plan of the tenant; a previous active subscription is canceled. */
  async assign(identity: Identity, userId: string, planSlug: string): Promise<SubscriptionWithPlan> {
    if (!isUuid(userId)) throw badInput('userId: must be a UUID');
    const tenantId = tenantOf(identity);
    const [plan] = await this.deps.db.select().from(plans).where(and(eq(plans.tenantId, tenantId), eq(plans.slug, planSlug)));
    if (!plan) throw notFound('Subscription plan');
    if (!plan.active) throw badInput('planSlug: the plan is not active', { fields: [{ field: 'planSlug', message: 'inactive plan' }] });
    const uid = userId.toLowerCase();
    try {
      const sub = await this.deps.txDb.transaction(async (tx) => {
        const now = new Date();
        await tx.update(subscriptions).set({ status: 'CANCELED', canceledAt: now, updatedAt: now })
          .where(and(eq(subscriptions.tenantId, tenantId), eq(subscriptions.userId, uid), eq(subscriptions.status, 'ACTIVE')));
        const [row] = await tx.insert(subscriptions).values({
          tenantId, userId: uid, planId: plan.id, status: 'ACTIVE', currentPeriodStart: now, currentPeriodEnd: addMonths(now, 1),
        }).returning();
        if (!row) throw new Error('subscription not saved');
        return row;
      });
      await bumpLimitsEpoch(this.deps.redis);
      return { ...sub, plan };
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict('Another assignment for this user happened at the same time; retry');
      throw e;
    }
  }

  async cancel(identity: Identity, userId: string): Promise<SubscriptionWithPlan> {
    if (!isUuid(userId)) throw notFound('Active subscription');
    const tenantId = tenantOf(identity);
    const current = await this.current(tenantId, userId.toLowerCase());
    if (!current) throw notFound('Active subscription');
    const now = new Date();
    const [row] = await this.deps.db.update(subscriptions).set({ status: 'CANCELED', canceledAt: now, updatedAt: now })
      .where(and(eq(subscriptions.id, current.id), eq(subscriptions.status, 'ACTIVE'))).returning();
    if (!row) throw notFound('Active subscription');
    await bumpLimitsEpoch(this.deps.redis);
    return { ...row, plan: current.plan };
  }
}
