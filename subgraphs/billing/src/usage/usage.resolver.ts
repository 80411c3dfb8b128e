import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { tenantOf, type BillingContext } from '../context';
import { UsageLedger } from './ledger';
import { Usage, toUsage } from './usage.types';

@Resolver()
export class UsageResolver {
  @Authorized()
  @Query(() => Usage, { description: "The caller's current-period usage against each monthly quota." })
  async myUsage(@Ctx() ctx: BillingContext): Promise<Usage> {
    const userId = ctx.identity.userId;
    if (!userId) throw new Error('identity without user');
    return toUsage(await new UsageLedger(ctx.deps).usage(tenantOf(ctx.identity), userId));
  }
}
