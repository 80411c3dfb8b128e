import { SCOPES, isUuid } from '@voxgate/kit';
import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { tenantOf, type BillingContext } from '../context';
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
  @Query(() => UserSubscription, { nullable: true })
  async userSubscription(@Ctx() ctx: BillingContext, @Arg('userId', () => ID) userId: string): Promise<UserSubscription | null> {
    if (!isUuid(userId)) return null;
    const sub = await new SubscriptionsService(ctx.deps).current(tenantOf(ctx.identity), userId.toLowerCase());
    return sub ? toSubscription(sub) : null;
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => UserSubscription, { description: 'Puts a user of the tenant on an active plan; a previous subscription is canceled.' })
  async assignSubscription(
    @Ctx() ctx: BillingContext,
    @Arg('userId', () => ID) userId: string,
    @Arg('input', () => AssignSubscriptionInput) input: AssignSubscriptionInput,
  ): Promise<UserSubscription> {
    return toSubscription(await new SubscriptionsService(ctx.deps).assign(ctx.identity, userId, input.planSlug));
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => UserSubscription, { description: "Cancels the user's active subscription (it will not renew)." })
  async cancelSubscription(@Ctx() ctx: BillingContext, @Arg('userId', () => ID) userId: string): Promise<UserSubscription> {
    return toSubscription(await new SubscriptionsService(ctx.deps).cancel(ctx.identity, userId));
  }
}
