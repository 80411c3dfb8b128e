import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { SubscriptionPlanSummary } from '../plans/plan.types';

export enum SubscriptionStatus {
  ACTIVE = 'ACTIVE',
  CANCELED = 'CANCELED',
}
registerEnumType(SubscriptionStatus, { name: 'SubscriptionStatus' });

/** UserSubscriptionResponse */
@ObjectType('UserSubscription')
export class UserSubscription {
  @Field(() => ID) id!: string;
  @Field(() => ID) userUuid!: string;
  @Field(() => SubscriptionPlanSummary) plan!: SubscriptionPlanSummary;
  @Field(() => SubscriptionStatus) status!: SubscriptionStatus;
  @Field(() => String) currentPeriodStart!: string;
  @Field(() => String) currentPeriodEnd!: string;
  @Field(() => String, { nullable: true }) canceledAt!: string | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
}

@InputType('AssignSubscriptionInput')
export class AssignSubscriptionInput {
  @Field(() => String, { description: 'slug of an active plan of the tenant' }) planSlug!: string;
}
