import 'reflect-metadata';
import { buildFederatedSchema, type SubgraphDefinition } from '@voxgate/kit';
import { createBillingContext, type BillingContext, type BillingDeps } from './context';
import { BillingTenant, BillingTenantResolver, BillingUser, BillingUserResolver } from './entities';
import { LimitsResolver } from './limits/limits.resolver';
import { PlanResolver } from './plans/plan.resolver';
import { SubscriptionResolver } from './subscriptions/subscription.resolver';

export type { BillingDeps } from './context';
export { LIMITS_EPOCH_KEY } from './context';
export { EffectiveLimitsReader } from './limits/effective-limits-reader';

export async function billingSubgraph(deps: BillingDeps): Promise<SubgraphDefinition<BillingContext>> {
  const schema = await buildFederatedSchema(
    {
      resolvers: [LimitsResolver, PlanResolver, SubscriptionResolver, BillingTenantResolver, BillingUserResolver],
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
