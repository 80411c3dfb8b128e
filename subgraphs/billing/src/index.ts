import 'reflect-metadata';
import { buildFederatedSchema, type SubgraphDefinition } from '@voxgate/kit';
import { createBillingContext, type BillingContext, type BillingDeps } from './context';
import { BillingTenant, BillingTenantResolver, BillingUser, BillingUserResolver } from './entities';
import { LimitsResolver } from './limits/limits.resolver';
import { PlanResolver } from './plans/plan.resolver';
import { SubscriptionResolver } from './subscriptions/subscription.resolver';
import { UsageResolver } from './usage/usage.resolver';

export type { BillingDeps } from './context';
export { EffectiveLimitsReader } from './limits/effective-limits-reader';
export { UsageLedger, LEDGER_QUOTAS, DEFAULT_RESERVATION_TTL_SECONDS, calendarMonth } from './usage/ledger';
export type { ReserveInput, RecordInput, UsageView, QuotaUsageView, UsagePeriod } from './usage/ledger';

export async function billingSubgraph(deps: BillingDeps): Promise<SubgraphDefinition<BillingContext>> {
  const schema = await buildFederatedSchema(
    {
      resolvers: [LimitsResolver, PlanResolver, SubscriptionResolver, UsageResolver, BillingTenantResolver, BillingUserResolver],
      // entities this subgraph only extends are reachable from no query of its own
      orphanedTypes: [BillingTenant, BillingUser],
    },
    {
      Tenant: { __resolveReference: ((ref: { id: string }) => ref) as never },
      User: { __resolveReference: ((ref: { id: string; tenantId?: string }) => ref) as never },
    },
  );
  return { name: 'billing', schema, createContext: (identity) => createBillingContext(deps, identity) };
}
