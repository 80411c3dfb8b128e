import { Field, InputType, Int, ObjectType } from 'type-graphql';

/** OAuthTokenResponse; field names follow OAuth 2.0, as the spec shows them. */
@ObjectType('TokenSet')
export class TokenSet {
  @Field(() => String) access_token!: string;
  @Field(() => String) refresh_token!: string;
  @Field(() => String) token_type!: string;
  @Field(() => Int) expires_in!: number;
  @Field(() => String, { nullable: true }) id_token!: string | null;
  @Field(() => String, { nullable: true }) scope!: string | null;
}

@InputType('LoginInput')
export class LoginInput {
  @Field(() => String) username!: string;
  @Field(() => String) password!: string;
}

@InputType('ExchangeAuthCodeInput')
export class ExchangeAuthCodeInput {
  @Field(() => String) code!: string;
  @Field(() => String) redirectUri!: string;
  @Field(() => String) codeVerifier!: string;
}

@InputType('RefreshTokenInput')
export class RefreshTokenInput {
  @Field(() => String) refreshToken!: string;
}

@InputType('LogoutInput')
export class LogoutInput {
  @Field(() => String) refreshToken!: string;
}
