import { SCOPES, forbidden, type Identity } from '@voxgate/kit';
import { asc, eq } from 'drizzle-orm';
import { Authorized, Ctx, Directive, Field, FieldResolver, ID, ObjectType, Resolver, Root } from 'type-graphql';
import type { BillingContext } from './context';
import { plans } from './db/schema';
import { RateLimits, rateLimitsToGraph } from './limits/limit.types';
import { LimitsService } from './limits/limits.service';
import { toPlan, toSubscription } from './mappers';
import { SubscriptionPlan } from './plans/plan.types';
import { UserSubscription } from './subscriptions/subscription.types';
import { SubscriptionsService } from './subscriptions/subscriptions.service';
import { UsageLedger } from './usage/ledger';
import { Usage, toUsage } from './usage/usage.types';

/** Billing's view of the tenancy entities: it adds fields, the tenancy subgraph owns the rest. */
@Directive('@key(fields: "id")')
@ObjectType('Tenant')
export class BillingTenant {
  @Field(() => ID) id!: string;
}

@Directive('@key(fields: "id")')
@ObjectType('User')
export class BillingUser {
  @Field(() => ID) id!: string;
  @Directive('@external')
  @Field(() => ID) tenantId!: string;
}

function sees(identity: Identity, tenantId: string): boolean {
  return identity.tenantName === 'system' || identity.tenantId === tenantId;
}

@Resolver(() => BillingTenant)
export class BillingTenantResolver {
  @Authorized(SCOPES.subscriptionsAdminRead)
  @FieldResolver(() => [SubscriptionPlan], { description: 'Every plan of the tenant, by display order.' })
  async plans(@Root() t: BillingTenant, @Ctx() ctx: BillingContext): Promise<SubscriptionPlan[]> {
    if (!sees(ctx.identity, t.id)) throw forbidden();
    const rows = await ctx.deps.db.select().from(plans).where(eq(plans.tenantId, t.id)).orderBy(asc(plans.displayOrder), asc(plans.name));
    return rows.map(toPlan);
  }

  @Authorized(SCOPES.rateLimitsRead)
  @FieldResolver(() => RateLimits, { description: 'Tenant-wide rate-limit defaults as set; null fields inherit the platform default.' })
  async rateLimitDefaults(@Root() t: BillingTenant, @Ctx() ctx: BillingContext): Promise<RateLimits> {
    if (!sees(ctx.identity, t.id)) throw forbidden();
    return rateLimitsToGraph(await new LimitsService(ctx.deps).tenantDefaultsOf(t.id)) ?? {};
  }
}

@Resolver(() => BillingUser)
export class BillingUserResolver {
  @Authorized()
  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => UserSubscription, { nullable: true, description: 'Active subscription (own, or admin:subscriptions:read).' })
  async subscription(@Root() u: BillingUser, @Ctx() ctx: BillingContext): Promise<UserSubscription | null> {
    // own subscription: the same scope as GET /subscription; others: the admin scope
    const own = u.id === ctx.identity.userId && ctx.identity.scopes.includes(SCOPES.subscriptionsRead);
    if (!own && !(ctx.identity.scopes.includes(SCOPES.subscriptionsAdminRead) && sees(ctx.identity, u.tenantId))) throw forbidden();
    const sub = await new SubscriptionsService(ctx.deps).current(u.tenantId, u.id);
    return sub ? toSubscription(sub) : null;
  }

  @Authorized()
  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => RateLimits, { description: 'Effective rate limits (own, or admin:ratelimits:read).' })
  async effectiveRateLimits(@Root() u: BillingUser, @Ctx() ctx: BillingContext): Promise<RateLimits> {
    const own = u.id === ctx.identity.userId;
    if (!own && !(ctx.identity.scopes.includes(SCOPES.rateLimitsRead) && sees(ctx.identity, u.tenantId))) throw forbidden();
    return rateLimitsToGraph((await new LimitsService(ctx.deps).effective(u.tenantId, u.id)).rateLimits) ?? {};
  }

  @Authorized()
  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => Usage, { description: 'Current-period usage of the monthly quotas (own, or admin:subscriptions:read).' })
  async usage(@Root() u: BillingUser, @Ctx() ctx: BillingContext): Promise<Usage> {
    const own = u.id === ctx.identity.userId && u.tenantId === ctx.identity.tenantId;
    if (!own && !(ctx.identity.scopes.includes(SCOPES.subscriptionsAdminRead) && sees(ctx.identity, u.tenantId))) throw forbidden();
    return toUsage(await new UsageLedger(ctx.deps).usage(u.tenantId, u.id));
  }
}
