import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { targetUser, tenantOf, type BillingContext } from '../context';
import { toSubscription } from '../mappers';
import { AssignSubscriptionInput, UserSubscription } from './subscription.types';
import { SubscriptionsService } from './subscriptions.service';

@Resolver(() => UserSubscription)
export class SubscriptionResolver {
  @Authorized(SCOPES.subscriptionsRead)
  @Query(() => UserSubscription, { nullable: true, description: "The caller's active subscription; null when none (REST: 204)." })
  async mySubscription(@Ctx() ctx: BillingContext): Promise<UserSubscription | null> {
    const sub = await new SubscriptionsService(ctx.deps).current(tenantOf(ctx.identity), ctx.identity.userId ?? '');
    return sub ? toSubscription(sub) : null;
  }

  @Authorized(SCOPES.subscriptionsAdminRead)
  @Query(() => UserSubscription, { nullable: true, description: 'NOT_FOUND for a user outside the caller\'s tenant.' })
  async userSubscription(@Ctx() ctx: BillingContext, @Arg('userId', () => ID) userId: string): Promise<UserSubscription | null> {
    const u = await targetUser(ctx.deps, ctx.identity, userId, false);
    const sub = await new SubscriptionsService(ctx.deps).current(u.tenantId, u.id);
    return sub ? toSubscription(sub) : null;
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => UserSubscription, { description: 'Puts a user of the tenant on an active plan; a previous subscription is canceled.' })
  async assignSubscription(
    @Ctx() ctx: BillingContext,
    @Arg('userId', () => ID) userId: string,
    @Arg('input', () => AssignSubscriptionInput) input: AssignSubscriptionInput,
  ): Promise<UserSubscription> {
    const u = await targetUser(ctx.deps, ctx.identity, userId, true);
    return toSubscription(await new SubscriptionsService(ctx.deps).assign(u.tenantId, u.id, input.planSlug));
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => UserSubscription, { description: "Cancels the user's active subscription (it will not renew)." })
  async cancelSubscription(@Ctx() ctx: BillingContext, @Arg('userId', () => ID) userId: string): Promise<UserSubscription> {
    const u = await targetUser(ctx.deps, ctx.identity, userId, true);
    return toSubscription(await new SubscriptionsService(ctx.deps).cancel(u.tenantId, u.id));
  }
}
