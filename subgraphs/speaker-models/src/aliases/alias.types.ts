import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { AsrModel, SentverModel, SpeakerEmbeddingModel } from '../models/model.types';
import { ModelAliasType } from '../shared/graphql-types';

/**
 * The alias record (the spec leaves it out): the request's fields as stored, plus the deprecation
 * state and times. GraphQL adds the resolved (and fallback) model objects.
 */
@ObjectType('SentverModelAlias')
export class SentverModelAlias {
  @Field(() => String) alias!: string;
  @Field(() => ModelAliasType) type!: ModelAliasType;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => String, { description: 'primary concrete model' }) resolvedModel!: string;
  @Field(() => String, { nullable: true, description: 'used while the primary is MAINTENANCE or INACTIVE' }) fallbackModel!: string | null;
  @Field(() => Boolean) isDefault!: boolean;
  @Field(() => Boolean) deprecated!: boolean;
  @Field(() => String, { nullable: true }) deprecationDate!: string | null;
  @Field(() => String, { nullable: true, description: 'after it, public requests naming the alias get 410 Gone' }) sunsetDate!: string | null;
  @Field(() => String, { nullable: true }) deprecationMessage!: string | null;
  @Field(() => Int, { nullable: true, description: 'minimum role hierarchy allowed to see the alias' }) minHierarchyOrder!: number | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
  @Field(() => SentverModel) resolved!: SentverModel;
  @Field(() => SentverModel, { nullable: true }) fallback!: SentverModel | null;
}

@ObjectType('SpeakerEmbeddingModelAlias')
export class SpeakerEmbeddingModelAlias {
  @Field(() => String) alias!: string;
  @Field(() => ModelAliasType) type!: ModelAliasType;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => String) resolvedModel!: string;
  @Field(() => Boolean) isDefault!: boolean;
  @Field(() => Boolean) deprecated!: boolean;
  @Field(() => String, { nullable: true }) deprecationDate!: string | null;
  @Field(() => String, { nullable: true }) sunsetDate!: string | null;
  @Field(() => String, { nullable: true }) deprecationMessage!: string | null;
  @Field(() => Int, { nullable: true }) minHierarchyOrder!: number | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
  @Field(() => SpeakerEmbeddingModel) resolved!: SpeakerEmbeddingModel;
}

@InputType('SentverAliasInput', { description: 'Sentver alias request: creates or updates.' })
export class SentverAliasInput {
  @Field(() => ModelAliasType) type!: ModelAliasType;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String) resolvedModel!: string;
  @Field(() => String, { nullable: true }) fallbackModel?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'exactly one alias per tenant is the default; the first one becomes it' }) isDefault?: boolean | null;
  @Field(() => Int, { nullable: true }) minHierarchyOrder?: number | null;
}

@InputType('SpeakerEmbeddingAliasInput', { description: 'SpeakerEmbeddingModelAliasAdminRequest: creates or updates.' })
export class SpeakerEmbeddingAliasInput {
  @Field(() => ModelAliasType) type!: ModelAliasType;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String) resolvedModel!: string;
  @Field(() => Boolean, { nullable: true }) isDefault?: boolean | null;
  @Field(() => Boolean, { nullable: true }) deprecated?: boolean | null;
  @Field(() => String, { nullable: true }) deprecationDate?: string | null;
  @Field(() => String, { nullable: true }) sunsetDate?: string | null;
  @Field(() => String, { nullable: true }) deprecationMessage?: string | null;
  @Field(() => Int, { nullable: true }) minHierarchyOrder?: number | null;
}

@InputType('SentverAliasResolveInput', { description: 'New primary and optional fallback model.' })
export class SentverAliasResolveInput {
  @Field(() => String) resolvedModel!: string;
  @Field(() => String, { nullable: true }) fallbackModel?: string | null;
}

@InputType('SpeakerEmbeddingAliasResolveInput', { description: 'The new concrete model; existing voice prints keep theirs.' })
export class SpeakerEmbeddingAliasResolveInput {
  @Field(() => String) resolvedModel!: string;
}

@InputType('DeprecateAliasInput', { description: 'DeprecateSentverAliasRequest (the embedding operation takes the same body).' })
export class DeprecateAliasInput {
  @Field(() => String, { nullable: true, description: 'when deprecation takes effect; default now' }) deprecationDate?: string | null;
  @Field(() => String, { nullable: true, description: 'after which public requests reject the alias' }) sunsetDate?: string | null;
  @Field(() => String, { nullable: true, description: 'migration guidance' }) message?: string | null;
}

@ObjectType('SentverModelAliasPut', { description: 'The alias after a PUT, and whether the PUT created it.' })
export class SentverModelAliasPut {
  @Field(() => SentverModelAlias) alias!: SentverModelAlias;
  @Field(() => Boolean) created!: boolean;
}

@ObjectType('SpeakerEmbeddingModelAliasPut', { description: 'The alias after a PUT, and whether the PUT created it.' })
export class SpeakerEmbeddingModelAliasPut {
  @Field(() => SpeakerEmbeddingModelAlias) alias!: SpeakerEmbeddingModelAlias;
  @Field(() => Boolean) created!: boolean;
}

/** The speech-recognition alias record: the sentver alias's shape, fallback included. */
@ObjectType('AsrModelAlias')
export class AsrModelAlias {
  @Field(() => String) alias!: string;
  @Field(() => ModelAliasType) type!: ModelAliasType;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => String, { description: 'primary concrete model' }) resolvedModel!: string;
  @Field(() => String, {
    nullable: true,
    description: 'used while the primary is MAINTENANCE or INACTIVE; streaming sessions also switch to it when the primary engine cannot be reached',
  }) fallbackModel!: string | null;
  @Field(() => Boolean) isDefault!: boolean;
  @Field(() => Boolean) deprecated!: boolean;
  @Field(() => String, { nullable: true }) deprecationDate!: string | null;
  @Field(() => String, { nullable: true, description: 'after it, sessions naming the alias are refused (410 Gone)' }) sunsetDate!: string | null;
  @Field(() => String, { nullable: true }) deprecationMessage!: string | null;
  @Field(() => Int, { nullable: true, description: 'minimum role hierarchy allowed to see the alias' }) minHierarchyOrder!: number | null;
  @Field(() => String) createdAt!: string;
  @Field(() => String) updatedAt!: string;
  @Field(() => AsrModel) resolved!: AsrModel;
  @Field(() => AsrModel, { nullable: true }) fallback!: AsrModel | null;
}

@InputType('AsrAliasInput', { description: 'Speech-recognition alias request: creates or updates.' })
export class AsrAliasInput {
  @Field(() => ModelAliasType) type!: ModelAliasType;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String) resolvedModel!: string;
  @Field(() => String, { nullable: true, description: 'must differ from resolvedModel' }) fallbackModel?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'exactly one alias per tenant is the default; the first one becomes it' }) isDefault?: boolean | null;
  @Field(() => Int, { nullable: true }) minHierarchyOrder?: number | null;
}

@InputType('AsrAliasResolveInput', { description: 'New primary and optional fallback model; existing sessions keep what they used.' })
export class AsrAliasResolveInput {
  @Field(() => String) resolvedModel!: string;
  @Field(() => String, { nullable: true }) fallbackModel?: string | null;
}

@ObjectType('AsrModelAliasPut', { description: 'The alias after a PUT, and whether the PUT created it.' })
export class AsrModelAliasPut {
  @Field(() => AsrModelAlias) alias!: AsrModelAlias;
  @Field(() => Boolean) created!: boolean;
}
