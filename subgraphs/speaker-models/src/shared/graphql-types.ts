import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, Float, InputType, ObjectType, registerEnumType } from 'type-graphql';

export { GraphQLJSONObject };

export enum GrpcTlsMode { PLAINTEXT = 'PLAINTEXT', SYSTEM_TRUST = 'SYSTEM_TRUST', MTLS = 'MTLS' }
registerEnumType(GrpcTlsMode, { name: 'GrpcTlsMode', description: 'PLAINTEXT (trusted private networks only), SYSTEM_TRUST, MTLS (deployment client certificate)' });

export enum SentverModelStatus { AVAILABLE = 'AVAILABLE', DEPRECATED = 'DEPRECATED', MAINTENANCE = 'MAINTENANCE', INACTIVE = 'INACTIVE' }
registerEnumType(SentverModelStatus, { name: 'SentverModelStatus' });

export enum SpeakerEmbeddingModelStatus { AVAILABLE = 'AVAILABLE', DEPRECATED = 'DEPRECATED', MAINTENANCE = 'MAINTENANCE', INACTIVE = 'INACTIVE' }
registerEnumType(SpeakerEmbeddingModelStatus, { name: 'SpeakerEmbeddingModelStatus' });

export enum AsrModelStatus { AVAILABLE = 'AVAILABLE', DEPRECATED = 'DEPRECATED', MAINTENANCE = 'MAINTENANCE', INACTIVE = 'INACTIVE' }
registerEnumType(AsrModelStatus, { name: 'AsrModelStatus' });

export enum ModelAliasType { FAMILY = 'FAMILY', PINNED = 'PINNED', CONCRETE = 'CONCRETE' }
registerEnumType(ModelAliasType, { name: 'ModelAliasType' });

@ObjectType('ModelThresholdDefaults', { description: 'Null fields use the global service default for that mode.' })
export class ModelThresholdDefaults {
  @Field(() => Float, { nullable: true }) strictAcceptThreshold?: number | null;
  @Field(() => Float, { nullable: true }) strictReviewThreshold?: number | null;
  @Field(() => Float, { nullable: true }) balancedAcceptThreshold?: number | null;
  @Field(() => Float, { nullable: true }) balancedReviewThreshold?: number | null;
  @Field(() => Float, { nullable: true }) lenientAcceptThreshold?: number | null;
  @Field(() => Float, { nullable: true }) lenientReviewThreshold?: number | null;
}

@InputType('ModelThresholdDefaultsInput', { description: 'Every value in [0.0, 1.0]; a review threshold must not exceed its accept threshold.' })
export class ModelThresholdDefaultsInput {
  @Field(() => Float, { nullable: true }) strictAcceptThreshold?: number | null;
  @Field(() => Float, { nullable: true }) strictReviewThreshold?: number | null;
  @Field(() => Float, { nullable: true }) balancedAcceptThreshold?: number | null;
  @Field(() => Float, { nullable: true }) balancedReviewThreshold?: number | null;
  @Field(() => Float, { nullable: true }) lenientAcceptThreshold?: number | null;
  @Field(() => Float, { nullable: true }) lenientReviewThreshold?: number | null;
}

/** A plain copy: type-graphql hands inputs over as class instances. */
export function thresholds(v: ModelThresholdDefaultsInput | null | undefined): Record<string, number | null> | null {
  return v ? { ...v } as Record<string, number | null> : null;
}
