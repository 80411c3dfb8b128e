import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { TenancyContext } from '../context';
import { AuthService } from './auth.service';
import { ExchangeAuthCodeInput, LoginInput, LogoutInput, RefreshTokenInput, TokenSet } from './token-set.type';

/** Public operations: no @Authorized; the edge still signs an anonymous identity naming the tenant. */
@Resolver()
export class AuthResolver {
  @Mutation(() => TokenSet, { deprecationReason: 'Use exchangeAuthCode (authorization code with PKCE) or API keys.' })
  async login(@Ctx() ctx: TenancyContext, @Arg('input', () => LoginInput) input: LoginInput): Promise<TokenSet> {
    return new AuthService(ctx.deps).login(ctx.identity, input.username, input.password);
  }

  @Mutation(() => TokenSet)
  async exchangeAuthCode(@Ctx() ctx: TenancyContext, @Arg('input', () => ExchangeAuthCodeInput) input: ExchangeAuthCodeInput): Promise<TokenSet> {
    return new AuthService(ctx.deps).exchange(ctx.identity, input.code, input.redirectUri, input.codeVerifier);
  }

  @Mutation(() => TokenSet, { description: 'The refresh token may be rotated: keep the latest one.' })
  async refreshToken(@Ctx() ctx: TenancyContext, @Arg('input', () => RefreshTokenInput) input: RefreshTokenInput): Promise<TokenSet> {
    return new AuthService(ctx.deps).refresh(ctx.identity, input.refreshToken);
  }

  @Mutation(() => Boolean)
  async logout(@Ctx() ctx: TenancyContext, @Arg('input', () => LogoutInput) input: LogoutInput): Promise<boolean> {
    await new AuthService(ctx.deps).logout(ctx.identity, input.refreshToken);
    return true;
  }
}
