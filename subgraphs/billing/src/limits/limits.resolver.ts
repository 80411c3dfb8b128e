import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, Field, ID, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { targetUser, tenantOf, type BillingContext } from '../context';
import { QuotaLimits, QuotaLimitsInput, quotasFromGraph, quotasToGraph, RateLimits, RateLimitsInput, rateLimitsFromGraph, rateLimitsToGraph } from './limit.types';
import { LimitsService } from './limits.service';

@ObjectType('UserLimitOverrides', { description: "A user's own overrides (the most specific layer); unset fields inherit." })
export class UserLimitOverrides {
  @Field(() => ID) userId!: string;
  @Field(() => RateLimits) rateLimits!: RateLimits;
  @Field(() => QuotaLimits) quotas!: QuotaLimits;
}

@InputType('UserLimitOverridesInput', { description: 'Only provided fields change; null resets to inherit.' })
export class UserLimitOverridesInput {
  @Field(() => RateLimitsInput, { nullable: true }) rateLimits?: RateLimitsInput | null;
  @Field(() => QuotaLimitsInput, { nullable: true }) quotas?: QuotaLimitsInput | null;
}

function overrides(userId: string, v: { rateLimits: Parameters<typeof rateLimitsToGraph>[0]; quotas: Parameters<typeof quotasToGraph>[0] }): UserLimitOverrides {
  return { userId, rateLimits: rateLimitsToGraph(v.rateLimits) ?? {}, quotas: quotasToGraph(v.quotas) ?? {} };
}

@Resolver()
export class LimitsResolver {
  @Authorized()
  @Query(() => RateLimits, { description: "The caller's effective limits: user override, then plan, tenant default, platform default." })
  async myRateLimits(@Ctx() ctx: BillingContext): Promise<RateLimits> {
    const eff = await new LimitsService(ctx.deps).effective(tenantOf(ctx.identity), ctx.identity.userId);
    return rateLimitsToGraph(eff.rateLimits) ?? {};
  }

  @Authorized(SCOPES.rateLimitsRead)
  @Query(() => RateLimits, { description: 'Tenant-wide defaults as set; null fields inherit the platform default.' })
  async rateLimitDefaults(@Ctx() ctx: BillingContext): Promise<RateLimits> {
    return rateLimitsToGraph(await new LimitsService(ctx.deps).tenantDefaults(ctx.identity)) ?? {};
  }

  @Authorized(SCOPES.rateLimitsWrite)
  @Mutation(() => RateLimits, { description: 'Only provided fields change; null resets a field to the platform default.' })
  async updateRateLimitDefaults(@Ctx() ctx: BillingContext, @Arg('input', () => RateLimitsInput) input: RateLimitsInput): Promise<RateLimits> {
    return rateLimitsToGraph(await new LimitsService(ctx.deps).patchTenantDefaults(ctx.identity, rateLimitsFromGraph(input))) ?? {};
  }

  @Authorized(SCOPES.subscriptionsAdminRead)
  @Query(() => QuotaLimits, { description: 'Tenant-wide quota defaults as set; null fields inherit the platform default.' })
  async quotaDefaults(@Ctx() ctx: BillingContext): Promise<QuotaLimits> {
    return quotasToGraph(await new LimitsService(ctx.deps).quotaDefaults(ctx.identity)) ?? {};
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => QuotaLimits, { description: 'Only provided fields change; null resets a field to the platform default.' })
  async updateQuotaDefaults(@Ctx() ctx: BillingContext, @Arg('input', () => QuotaLimitsInput) input: QuotaLimitsInput): Promise<QuotaLimits> {
    return quotasToGraph(await new LimitsService(ctx.deps).patchQuotaDefaults(ctx.identity, quotasFromGraph(input))) ?? {};
  }

  @Authorized(SCOPES.subscriptionsAdminRead)
  @Query(() => UserLimitOverrides)
  async userLimitOverrides(@Ctx() ctx: BillingContext, @Arg('userId', () => ID) userId: string): Promise<UserLimitOverrides> {
    const u = await targetUser(ctx.deps, ctx.identity, userId, false);
    return overrides(u.id, await new LimitsService(ctx.deps).userOverrides(u.tenantId, u.id));
  }

  @Authorized(SCOPES.subscriptionsAdminWrite)
  @Mutation(() => UserLimitOverrides)
  async updateUserLimitOverrides(
    @Ctx() ctx: BillingContext,
    @Arg('userId', () => ID) userId: string,
    @Arg('input', () => UserLimitOverridesInput) input: UserLimitOverridesInput,
  ): Promise<UserLimitOverrides> {
    const u = await targetUser(ctx.deps, ctx.identity, userId, true);
    const result = await new LimitsService(ctx.deps).patchUserOverrides(u.tenantId, u.id, {
      rateLimits: input.rateLimits ? rateLimitsFromGraph(input.rateLimits) : undefined,
      quotas: input.quotas ? quotasFromGraph(input.quotas) : undefined,
    });
    return overrides(u.id, result);
  }
}
