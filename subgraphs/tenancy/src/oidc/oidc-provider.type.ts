import { Field, ID, InputType, ObjectType } from 'type-graphql';

@ObjectType('OidcProvider', { description: 'OidcProviderResponse: the client secret is never returned.' })
export class OidcProvider {
  @Field(() => ID) id!: string;
  @Field(() => String) providerKey!: string;
  @Field(() => String) clientId!: string;
  @Field(() => Boolean) clientSecretConfigured!: boolean;
  @Field(() => String) issuerUri!: string;
  @Field(() => String, { nullable: true }) authorizationUri!: string | null;
  @Field(() => String) tokenUri!: string;
  @Field(() => String, { nullable: true }) userInfoUri!: string | null;
  @Field(() => String) jwkSetUri!: string;
  @Field(() => String, { nullable: true }) endSessionUri!: string | null;
  @Field(() => String, { nullable: true }) introspectionUri!: string | null;
  @Field(() => String, { nullable: true }) advertisedIssuer!: string | null;
}

@InputType('OidcProviderInput', { description: 'OidcProviderCreateRequest' })
export class OidcProviderInput {
  @Field(() => String, { nullable: true, description: 'defaults to "oidc"' }) providerKey?: string | null;
  @Field(() => String) clientId!: string;
  @Field(() => String, { nullable: true, description: 'plaintext on input; never returned' }) clientSecret?: string | null;
  @Field(() => String) issuerUri!: string;
  @Field(() => String, { nullable: true }) authorizationUri?: string | null;
  @Field(() => String) tokenUri!: string;
  @Field(() => String, { nullable: true }) userInfoUri?: string | null;
  @Field(() => String) jwkSetUri!: string;
  @Field(() => String, { nullable: true }) endSessionUri?: string | null;
  @Field(() => String, { nullable: true }) introspectionUri?: string | null;
  @Field(() => String, { nullable: true, description: 'public-facing issuer' }) advertisedIssuer?: string | null;
}

@ObjectType('OidcTestResult')
export class OidcTestResult {
  @Field(() => Boolean) success!: boolean;
  @Field(() => String, { nullable: true }) message!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
}
