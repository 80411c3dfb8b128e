import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { BillingContext } from '../context';
import { toPlan } from '../mappers';
import { SubscriptionPlan, SubscriptionPlanCreateInput, SubscriptionPlanUpdateInput } from './plan.types';
import { PlansService } from './plans.service';

@Resolver(() => SubscriptionPlan)
export class PlanResolver {
  @Authorized(SCOPES.plansRead)
  @Query(() => [SubscriptionPlan], { description: "Active plans of the caller's tenant, by display order." })
  async subscriptionPlans(@Ctx() ctx: BillingContext): Promise<SubscriptionPlan[]> {
    return (await new PlansService(ctx.deps).listActive(ctx.identity)).map(toPlan);
  }

  @Authorized(SCOPES.plansRead)
  @Query(() => SubscriptionPlan, { description: 'One active plan; NOT_FOUND when missing or inactive.' })
  async subscriptionPlan(@Ctx() ctx: BillingContext, @Arg('slug', () => String) slug: string): Promise<SubscriptionPlan> {
    return toPlan(await new PlansService(ctx.deps).activeBySlug(ctx.identity, slug));
  }

  @Authorized(SCOPES.subscriptionsAdminRead)
  @Query(() => [SubscriptionPlan], { description: 'Every plan of the tenant, inactive ones included.' })
  async adminSubscriptionPlans(@Ctx() ctx: BillingContext): Promise<SubscriptionPlan[]> {
    return (await new PlansService(ctx.deps).listAll(ctx.identity)).map(toPlan);
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => SubscriptionPlan)
  async createSubscriptionPlan(@Ctx() ctx: BillingContext, @Arg('input', () => SubscriptionPlanCreateInput) input: SubscriptionPlanCreateInput): Promise<SubscriptionPlan> {
    return toPlan(await new PlansService(ctx.deps).create(ctx.identity, input));
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => SubscriptionPlan)
  async updateSubscriptionPlan(
    @Ctx() ctx: BillingContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => SubscriptionPlanUpdateInput) input: SubscriptionPlanUpdateInput,
  ): Promise<SubscriptionPlan> {
    return toPlan(await new PlansService(ctx.deps).update(ctx.identity, id, input));
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => SubscriptionPlan, { description: 'New users can no longer subscribe; existing subscriptions keep it.' })
  async deactivateSubscriptionPlan(@Ctx() ctx: BillingContext, @Arg('id', () => ID) id: string): Promise<SubscriptionPlan> {
    return toPlan(await new PlansService(ctx.deps).update(ctx.identity, id, { active: false }));
  }
}
