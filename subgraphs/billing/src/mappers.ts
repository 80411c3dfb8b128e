import type { PlanRow } from './db/schema';
import { quotasToGraph, rateLimitsToGraph } from './limits/limit.types';
import type { SubscriptionPlan } from './plans/plan.types';
import { SubscriptionStatus, type UserSubscription } from './subscriptions/subscription.types';
import type { SubscriptionWithPlan } from './subscriptions/subscriptions.service';

export const toPlan = (p: PlanRow): SubscriptionPlan => ({
  id: p.id, slug: p.slug, name: p.name, active: p.active, displayOrder: p.displayOrder,
  quotas: quotasToGraph(p.quotas), rateLimits: rateLimitsToGraph(p.rateLimits), permissions: p.permissions,
  createdAt: p.createdAt.toISOString(), updatedAt: p.updatedAt.toISOString(),
});

export const toSubscription = (s: SubscriptionWithPlan): UserSubscription => ({
  id: s.id, userUuid: s.userId, plan: { id: s.plan.id, slug: s.plan.slug, name: s.plan.name },
  status: s.status === 'ACTIVE' ? SubscriptionStatus.ACTIVE : SubscriptionStatus.CANCELED,
  currentPeriodStart: s.currentPeriodStart.toISOString(), currentPeriodEnd: s.currentPeriodEnd.toISOString(),
  canceledAt: s.canceledAt ? s.canceledAt.toISOString() : null,
  createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString(),
});
