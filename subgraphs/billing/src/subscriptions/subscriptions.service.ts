import { and, asc, desc, eq, gt, or } from 'drizzle-orm';
import { badInput, conflict, isUniqueViolation, notFound } from '@voxgate/kit';
import { bumpLimitsEpoch, type BillingStores } from '../context';
import { plans, subscriptions, type PlanRow, type SubscriptionRow } from '../db/schema';

import { addMonths, periodAt } from './period';

export interface SubscriptionWithPlan extends SubscriptionRow {
  plan: PlanRow;
}

export class SubscriptionsService {
  constructor(private readonly deps: BillingStores) {}

  /**
   * The subscription in force, or null: an ACTIVE one, or a CANCELED one until the end of its
   * paid period (it will not renew). ACTIVE periods roll over lazily: read after its period ended,
   * a subscription moves to the period containing now, counted in whole months from its start so
   * short months do not make it drift.
   */
  async current(tenantId: string, userId: string): Promise<SubscriptionWithPlan | null> {
    const now = new Date();
    const rows = await this.deps.db
      .select({ sub: subscriptions, plan: plans })
      .from(subscriptions)
      .innerJoin(plans, eq(plans.id, subscriptions.planId))
      .where(and(
        eq(subscriptions.tenantId, tenantId), eq(subscriptions.userId, userId),
        or(eq(subscriptions.status, 'ACTIVE'), and(eq(subscriptions.status, 'CANCELED'), gt(subscriptions.currentPeriodEnd, now))),
      ))
      .orderBy(asc(subscriptions.status), desc(subscriptions.createdAt));
    const row = rows[0];
    if (!row) return null;
    if (row.sub.status === 'ACTIVE' && row.sub.currentPeriodEnd.getTime() <= now.getTime()) {
      const period = periodAt(row.sub.createdAt, now);
      const [rolled] = await this.deps.db.update(subscriptions)
        .set({ currentPeriodStart: period.start, currentPeriodEnd: period.end, updatedAt: now })
        .where(and(eq(subscriptions.id, row.sub.id), eq(subscriptions.currentPeriodEnd, row.sub.currentPeriodEnd)))
        .returning();
      return { ...(rolled ?? { ...row.sub, currentPeriodStart: period.start, currentPeriodEnd: period.end }), plan: row.plan };
    }
    return { ...row.sub, plan: row.plan };
  }

  /** Puts the user on an active plan of their tenant; a previous subscription ends now. */
  async assign(tenantId: string, uid: string, planSlug: string): Promise<SubscriptionWithPlan> {
    const [plan] = await this.deps.db.select().from(plans).where(and(eq(plans.tenantId, tenantId), eq(plans.slug, planSlug)));
    if (!plan) throw notFound('Subscription plan');
    if (!plan.active) throw badInput('planSlug: the plan is not active', { fields: [{ field: 'planSlug', message: 'inactive plan' }] });
    try {
      const sub = await this.deps.txDb.transaction(async (tx) => {
        const now = new Date();
        // the replaced subscription (active, or canceled but still in force) ends at once
        await tx.update(subscriptions).set({ status: 'CANCELED', canceledAt: now, currentPeriodEnd: now, updatedAt: now })
          .where(and(eq(subscriptions.tenantId, tenantId), eq(subscriptions.userId, uid),
            or(eq(subscriptions.status, 'ACTIVE'), and(eq(subscriptions.status, 'CANCELED'), gt(subscriptions.currentPeriodEnd, now)))));
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

  /** CANCELED: it stays in force until the end of the paid period, and does not renew. */
  async cancel(tenantId: string, userId: string): Promise<SubscriptionWithPlan> {
    const current = await this.current(tenantId, userId);
    if (!current || current.status !== 'ACTIVE') throw notFound('Active subscription');
    const now = new Date();
    const [row] = await this.deps.db.update(subscriptions).set({ status: 'CANCELED', canceledAt: now, updatedAt: now })
      .where(and(eq(subscriptions.id, current.id), eq(subscriptions.status, 'ACTIVE'))).returning();
    if (!row) throw notFound('Active subscription');
    await bumpLimitsEpoch(this.deps.redis);
    return { ...row, plan: current.plan };
  }
}
