import { Field, Float, ObjectType } from 'type-graphql';
import type { UsageView } from './ledger';

@ObjectType('QuotaUsage', { description: 'One monthly quota in the current period. Values are 64-bit (Float here, exact to 2^53).' })
export class QuotaUsage {
  @Field(() => String, { description: "the spec's hyphenated group name, e.g. speech-service" }) group!: string;
  @Field(() => String, { description: 'the quota field, e.g. monthlyTranscriptionMinutes' }) quota!: string;
  @Field(() => Float, { description: 'committed usage in the period' }) used!: number;
  @Field(() => Float, { description: 'unexpired reservations in the period' }) reserved!: number;
  @Field(() => Float, { description: 'effective limit: user override, plan, tenant default, platform default' }) limit!: number;
  @Field(() => Float, { description: 'limit − used − reserved, never below 0' }) remaining!: number;
}

@ObjectType('Usage', { description: 'Current-period usage of the monthly quotas (the subscription period, else the UTC calendar month).' })
export class Usage {
  @Field(() => String, { description: 'ISO 8601' }) periodStart!: string;
  @Field(() => String, { description: 'ISO 8601 (exclusive)' }) periodEnd!: string;
  @Field(() => [QuotaUsage]) quotas!: QuotaUsage[];
}

export const toUsage = (u: UsageView): Usage => ({
  periodStart: u.periodStart.toISOString(), periodEnd: u.periodEnd.toISOString(), quotas: u.quotas.map((q) => ({ ...q })),
});
