import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { QuotaLimits, QuotaLimitsInput, RateLimits, RateLimitsInput } from '../limits/limit.types';

/** SubscriptionPlanResponse */
@ObjectType('SubscriptionPlan')
export class SubscriptionPlan {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'URL-friendly identifier' }) slug!: string;
  @Field(() => String) name!: string;
  @Field(() => Boolean, { description: 'whether new users can subscribe' }) active!: boolean;
  @Field(() => Int) displayOrder!: number;
  @Field(() => QuotaLimits, { nullable: true, description: 'null fields inherit tenant defaults' }) quotas!: QuotaLimits | null;
  @Field(() => RateLimits, { nullable: true, description: 'null fields inherit tenant defaults' }) rateLimits!: RateLimits | null;
  @Field(() => [String], { description: 'permission scopes granted by the plan' }) permissions!: string[];
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
}

@ObjectType('SubscriptionPlanSummary')
export class SubscriptionPlanSummary {
  @Field(() => ID) id!: string;
  @Field(() => String) slug!: string;
  @Field(() => String) name!: string;
}

@InputType('SubscriptionPlanCreateInput')
export class SubscriptionPlanCreateInput {
  @Field(() => String, { description: 'unique in the tenant; lowercase letters, digits, hyphens; max 64' }) slug!: string;
  @Field(() => String, { description: 'max 100 characters' }) name!: string;
  @Field(() => Boolean, { nullable: true, description: 'default true' }) active?: boolean | null;
  @Field(() => Int, { nullable: true, description: 'default 0' }) displayOrder?: number | null;
  @Field(() => QuotaLimitsInput, { nullable: true }) quotas?: QuotaLimitsInput | null;
  @Field(() => RateLimitsInput, { nullable: true }) rateLimits?: RateLimitsInput | null;
  @Field(() => [String], { nullable: true, description: 'scopes from the catalogue' }) permissions?: string[] | null;
}

@InputType('SubscriptionPlanUpdateInput', { description: 'Only provided fields change; quotas and rateLimits are replaced whole; slug is immutable.' })
export class SubscriptionPlanUpdateInput {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => Boolean, { nullable: true }) active?: boolean | null;
  @Field(() => Int, { nullable: true }) displayOrder?: number | null;
  @Field(() => QuotaLimitsInput, { nullable: true }) quotas?: QuotaLimitsInput | null;
  @Field(() => RateLimitsInput, { nullable: true }) rateLimits?: RateLimitsInput | null;
  @Field(() => [String], { nullable: true }) permissions?: string[] | null;
}
