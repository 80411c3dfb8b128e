import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';

export enum ApiKeyState {
  Active = 'Active',
  Expired = 'Expired',
  Revoked = 'Revoked',
}
registerEnumType(ApiKeyState, { name: 'ApiKeyState' });

/** An API key as listed: never the secret nor its hash. */
@ObjectType('ApiKey')
export class ApiKey {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => String, { description: 'first characters of the key, to recognise it' }) prefix!: string;
  @Field(() => [String], { nullable: true, description: 'null for an identity-only key' }) scopes!: string[] | null;
  @Field(() => ApiKeyState) state!: ApiKeyState;
  @Field(() => String, { nullable: true }) expiresAt!: string | null;
  @Field(() => String, { nullable: true }) revokedAt!: string | null;
  @Field(() => String, { nullable: true }) lastUsedAt!: string | null;
  @Field(() => String) createdAt!: string;
}

@ObjectType('CreatedApiKey', { description: 'The creation response: the only time the plain key is shown.' })
export class CreatedApiKey extends ApiKey {
  @Field(() => String) key!: string;
}

@InputType('ApiKeyCreateInput')
export class ApiKeyCreateInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 8601; must be in the future' }) expiresAt?: string | null;
  @Field(() => [String], { nullable: true, description: 'omit for an identity-only key' }) scopes?: string[] | null;
}
