import { Field, ObjectType } from 'type-graphql';
import { ModelAliasType } from '../shared/graphql-types';

/** What a user may know of an alias: no gRPC configuration, no hidden aliases. */
@ObjectType('ModelAliasOption')
export class ModelAliasOption {
  @Field(() => String) alias!: string;
  @Field(() => ModelAliasType) type!: ModelAliasType;
  @Field(() => String) displayName!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => Boolean) isDefault!: boolean;
  @Field(() => Boolean) deprecated!: boolean;
  @Field(() => String, { nullable: true }) deprecationDate!: string | null;
  @Field(() => String, { nullable: true }) sunsetDate!: string | null;
  @Field(() => String, { nullable: true }) deprecationMessage!: string | null;
  @Field(() => [String], { nullable: true, description: "the resolved model's BCP-47 locales" }) supportedLocales!: string[] | null;
}

@ObjectType('ModelAliasResolution', { description: 'Which concrete model an alias would use now.' })
export class ModelAliasResolution {
  @Field(() => String, { nullable: true, description: 'null when the tenant default was asked for' }) requestedAlias!: string | null;
  @Field(() => String) alias!: string;
  @Field(() => String) resolvedModel!: string;
  @Field(() => Boolean) usedFallback!: boolean;
  @Field(() => Boolean) deprecated!: boolean;
  @Field(() => String, { nullable: true }) deprecationDate!: string | null;
  @Field(() => String, { nullable: true }) sunsetDate!: string | null;
  @Field(() => String, { nullable: true }) deprecationMessage!: string | null;
}

@ObjectType('ModelConnectionTest', { description: "Result of calling the engine's Health method." })
export class ModelConnectionTest {
  @Field(() => Boolean) success!: boolean;
  @Field(() => String, { nullable: true, description: 'SERVING, NOT_SERVING… as the engine reports it' }) status!: string | null;
  @Field(() => String, { nullable: true }) message!: string | null;
  @Field(() => Number, { nullable: true }) latencyMs!: number | null;
}
