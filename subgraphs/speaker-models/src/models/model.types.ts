import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import {
  AsrModelStatus, GraphQLJSONObject, GrpcTlsMode, ModelThresholdDefaults, ModelThresholdDefaultsInput, SentverModelStatus, SpeakerEmbeddingModelStatus,
} from '../shared/graphql-types';

type Metadata = Record<string, string> | null;

/**
 * The sentence-verification model record (the spec leaves it out): it mirrors
 * AdminSpeakerEmbeddingModelResponse, with the gRPC fields flat as in the sentver request, plus
 * maxExpectedTextLength and the counts of retained records that keep the model from deletion.
 */
@ObjectType('SentverModel')
export class SentverModel {
  @Field(() => String) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => SentverModelStatus) status!: SentverModelStatus;
  @Field(() => String, { nullable: true }) statusMessage!: string | null;
  @Field(() => String, { nullable: true }) deprecatedAt!: string | null;
  @Field(() => String, { nullable: true }) inactiveAt!: string | null;
  @Field(() => [String]) supportedLocales!: string[];
  @Field(() => Int, { nullable: true }) maxExpectedTextLength!: number | null;
  @Field(() => String) grpcTarget!: string;
  @Field(() => GrpcTlsMode) grpcTlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) grpcAuthority!: string | null;
  @Field(() => Int) grpcDeadlineMs!: number;
  @Field(() => Int, { nullable: true }) grpcMaxInboundMessageBytes!: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) grpcMetadata!: Metadata;
  @Field(() => ModelThresholdDefaults, { nullable: true }) thresholdDefaults!: ModelThresholdDefaults | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
  @Field(() => Float, { description: 'enrollments retained with this resolved model' }) retainedEnrollmentCount!: number;
  @Field(() => Float, { description: 'verifications retained with this resolved model' }) retainedVerificationCount!: number;
}

@InputType('SentverModelInput', { description: 'Sentver model request (register). The model starts INACTIVE.' })
export class SentverModelInput {
  @Field(() => String, { description: 'immutable concrete identifier' }) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => [String], { description: 'BCP-47, non-empty' }) supportedLocales!: string[];
  @Field(() => Int, { nullable: true }) maxExpectedTextLength?: number | null;
  @Field(() => String) grpcTarget!: string;
  @Field(() => GrpcTlsMode) grpcTlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) grpcAuthority?: string | null;
  @Field(() => Int, { nullable: true, description: 'default 5000' }) grpcDeadlineMs?: number | null;
  @Field(() => Int, { nullable: true }) grpcMaxInboundMessageBytes?: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'sent with inference requests' }) grpcMetadata?: Metadata;
  @Field(() => ModelThresholdDefaultsInput, { nullable: true }) thresholdDefaults?: ModelThresholdDefaultsInput | null;
}

@InputType('UpdateSentverModelInput', { description: 'Replaces the editable configuration; omitted nullable fields are cleared.' })
export class UpdateSentverModelInput {
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => [String]) supportedLocales!: string[];
  @Field(() => Int, { nullable: true }) maxExpectedTextLength?: number | null;
  @Field(() => String) grpcTarget!: string;
  @Field(() => GrpcTlsMode) grpcTlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) grpcAuthority?: string | null;
  @Field(() => Int, { description: 'must be positive' }) grpcDeadlineMs!: number;
  @Field(() => Int, { nullable: true }) grpcMaxInboundMessageBytes?: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) grpcMetadata?: Metadata;
  @Field(() => ModelThresholdDefaultsInput, { nullable: true }) thresholdDefaults?: ModelThresholdDefaultsInput | null;
}

@InputType('UpdateSentverModelStatusInput')
export class UpdateSentverModelStatusInput {
  @Field(() => SentverModelStatus) status!: SentverModelStatus;
  @Field(() => String, { nullable: true, description: 'operator-facing reason' }) statusMessage?: string | null;
}

@ObjectType('SpeakerEmbeddingGrpcClientConfig')
export class SpeakerEmbeddingGrpcClientConfig {
  @Field(() => String) target!: string;
  @Field(() => GrpcTlsMode) tlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) authority!: string | null;
  @Field(() => Int, { description: 'milliseconds' }) deadlineMs!: number;
  @Field(() => Int, { nullable: true }) maxInboundMessageBytes!: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) metadata!: Metadata;
}

@InputType('SpeakerEmbeddingGrpcClientConfigInput')
export class SpeakerEmbeddingGrpcClientConfigInput {
  @Field(() => String) target!: string;
  @Field(() => GrpcTlsMode) tlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) authority?: string | null;
  @Field(() => Int, { description: 'milliseconds, positive' }) deadlineMs!: number;
  @Field(() => Int, { nullable: true }) maxInboundMessageBytes?: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) metadata?: Metadata;
}

/** AdminSpeakerEmbeddingModelResponse */
@ObjectType('SpeakerEmbeddingModel')
export class SpeakerEmbeddingModel {
  @Field(() => String) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => SpeakerEmbeddingModelStatus) status!: SpeakerEmbeddingModelStatus;
  @Field(() => String, { nullable: true }) statusMessage!: string | null;
  @Field(() => String, { nullable: true }) deprecatedAt!: string | null;
  @Field(() => String, { nullable: true }) inactiveAt!: string | null;
  @Field(() => [String], { nullable: true }) supportedLocales!: string[] | null;
  @Field(() => SpeakerEmbeddingGrpcClientConfig) grpc!: SpeakerEmbeddingGrpcClientConfig;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
  @Field(() => ModelThresholdDefaults, { nullable: true }) thresholdDefaults!: ModelThresholdDefaults | null;
  @Field(() => Float, { description: 'active non-deleted voice prints using the model' }) activeVoicePrintCount!: number;
  @Field(() => Float, { description: "speakers whose default voice print uses the model" }) defaultVoicePrintSpeakerCount!: number;
}

@InputType('SpeakerEmbeddingModelInput', { description: 'SpeakerEmbeddingModelAdminRequest' })
export class SpeakerEmbeddingModelInput {
  @Field(() => String, { description: 'immutable' }) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => SpeakerEmbeddingModelStatus, { nullable: true, description: 'initial status, default AVAILABLE' }) status?: SpeakerEmbeddingModelStatus | null;
  @Field(() => [String], { nullable: true }) supportedLocales?: string[] | null;
  @Field(() => SpeakerEmbeddingGrpcClientConfigInput) grpc!: SpeakerEmbeddingGrpcClientConfigInput;
  @Field(() => ModelThresholdDefaultsInput, { nullable: true }) thresholdDefaults?: ModelThresholdDefaultsInput | null;
}

@InputType('UpdateSpeakerEmbeddingModelInput', { description: 'Replaces the editable configuration; omitted nullable fields are cleared; voice prints are not rebuilt.' })
export class UpdateSpeakerEmbeddingModelInput {
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => [String], { nullable: true }) supportedLocales?: string[] | null;
  @Field(() => SpeakerEmbeddingGrpcClientConfigInput) grpc!: SpeakerEmbeddingGrpcClientConfigInput;
  @Field(() => ModelThresholdDefaultsInput, { nullable: true }) thresholdDefaults?: ModelThresholdDefaultsInput | null;
}

@InputType('UpdateSpeakerEmbeddingModelStatusInput')
export class UpdateSpeakerEmbeddingModelStatusInput {
  @Field(() => SpeakerEmbeddingModelStatus) status!: SpeakerEmbeddingModelStatus;
  @Field(() => String, { nullable: true }) statusMessage?: string | null;
}

/**
 * The speech-recognition (ASR) model record: the sentver record's shape without what only
 * verification has (maxExpectedTextLength, thresholds) and without retained-record counts, since
 * streaming sessions keep the resolved model's name, not a reference that could block deletion.
 */
@ObjectType('AsrModel')
export class AsrModel {
  @Field(() => String) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => AsrModelStatus) status!: AsrModelStatus;
  @Field(() => String, { nullable: true }) statusMessage!: string | null;
  @Field(() => String, { nullable: true }) deprecatedAt!: string | null;
  @Field(() => String, { nullable: true }) inactiveAt!: string | null;
  @Field(() => [String], { description: 'BCP-47 languages a session may ask for' }) supportedLocales!: string[];
  @Field(() => String) grpcTarget!: string;
  @Field(() => GrpcTlsMode) grpcTlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) grpcAuthority!: string | null;
  @Field(() => Int) grpcDeadlineMs!: number;
  @Field(() => Int, { nullable: true }) grpcMaxInboundMessageBytes!: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) grpcMetadata!: Metadata;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
}

@InputType('AsrModelInput', { description: 'Registers a speech-recognition model; it starts AVAILABLE unless a status is given.' })
export class AsrModelInput {
  @Field(() => String, { description: 'immutable concrete identifier' }) name!: string;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => AsrModelStatus, { nullable: true, description: 'initial status, default AVAILABLE' }) status?: AsrModelStatus | null;
  @Field(() => [String], { description: 'BCP-47, non-empty' }) supportedLocales!: string[];
  @Field(() => String) grpcTarget!: string;
  @Field(() => GrpcTlsMode) grpcTlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) grpcAuthority?: string | null;
  @Field(() => Int, { nullable: true, description: 'default 5000; applies to unary calls (Health, Recognize), not to a whole stream' }) grpcDeadlineMs?: number | null;
  @Field(() => Int, { nullable: true }) grpcMaxInboundMessageBytes?: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'sent with every engine call' }) grpcMetadata?: Metadata;
}

@InputType('UpdateAsrModelInput', { description: 'Replaces the editable configuration; omitted nullable fields are cleared.' })
export class UpdateAsrModelInput {
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => [String]) supportedLocales!: string[];
  @Field(() => String) grpcTarget!: string;
  @Field(() => GrpcTlsMode) grpcTlsMode!: GrpcTlsMode;
  @Field(() => String, { nullable: true }) grpcAuthority?: string | null;
  @Field(() => Int, { description: 'must be positive' }) grpcDeadlineMs!: number;
  @Field(() => Int, { nullable: true }) grpcMaxInboundMessageBytes?: number | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) grpcMetadata?: Metadata;
}

@InputType('UpdateAsrModelStatusInput')
export class UpdateAsrModelStatusInput {
  @Field(() => AsrModelStatus) status!: AsrModelStatus;
  @Field(() => String, { nullable: true, description: 'operator-facing reason' }) statusMessage?: string | null;
}
