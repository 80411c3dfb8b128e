import { eq } from 'drizzle-orm';
import { decodeJwt, type JWTPayload } from 'jose';
import { appError, badInput, unauthenticated, type Identity } from '@voxgate/kit';
import { isProviderUnavailable, verifyProviderToken } from '../authn/provider-tokens';
import { bumpAuthnEpoch } from '../authn-epoch';
import type { TenancyDeps } from '../context';
import { oidcProviders, tenants, type OidcProviderRow, type TenantRow } from '../db/schema';
import { discover, idpFailure, IdpError, postForm, tokenRequest, type TokenResponse } from '../oidc/token-client';
import { syncUser, type ProviderClaims } from '../users/user-sync';
import type { TokenSet } from './token-set.type';

const LOGIN_SCOPE = 'openid profile email offline_access';

function str(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

function required(value: string, field: string): string {
  if (!value || value.trim() === '') throw badInput(`${field}: must not be empty`, { fields: [{ field, message: 'required' }] });
  return value;
}

/** Public authentication operations; the tenant is the one the edge named on the anonymous identity. */
export class AuthService {
  constructor(private readonly deps: TenancyDeps) {}

  private async tenantAndProvider(identity: Identity, disabledError: 'UNAUTHENTICATED' | 'BAD_USER_INPUT'):
    Promise<{ tenant: TenantRow; provider: OidcProviderRow }> {
    const [row] = await this.deps.db
      .select({ tenant: tenants, provider: oidcProviders })
      .from(tenants)
      .leftJoin(oidcProviders, eq(oidcProviders.tenantId, tenants.id))
      .where(eq(tenants.name, identity.tenantName));
    if (!row) throw appError(disabledError, `Unknown tenant "${identity.tenantName}"`);
    if (!row.tenant.enabled) throw appError(disabledError, 'Tenant is disabled');
    if (!row.provider) throw appError('UNAVAILABLE', 'The tenant has no identity provider configured');
    return { tenant: row.tenant, provider: row.provider };
  }

  async login(identity: Identity, username: string, password: string): Promise<TokenSet> {
    required(username, 'username');
    required(password, 'password');
    const { tenant, provider } = await this.tenantAndProvider(identity, 'UNAUTHENTICATED');
    let tokens: TokenResponse;
    try {
      tokens = await tokenRequest(provider, { grant_type: 'password', username, password, scope: LOGIN_SCOPE });
    } catch (e) {
      throw idpFailure(e, 'UNAUTHENTICATED', 'Invalid username or password');
    }
    await this.synchronize(tenant, provider, tokens);
    return toTokenSet(tokens);
  }

  async exchange(identity: Identity, code: string, redirectUri: string, codeVerifier: string): Promise<TokenSet> {
    required(code, 'code');
    required(redirectUri, 'redirectUri');
    required(codeVerifier, 'codeVerifier');
    const { tenant, provider } = await this.tenantAndProvider(identity, 'UNAUTHENTICATED');
    let tokens: TokenResponse;
    try {
      tokens = await tokenRequest(provider, {
        grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: codeVerifier,
      });
    } catch (e) {
      throw idpFailure(e, 'UNAUTHENTICATED', 'Authorization code invalid or expired, or redirect URI mismatch');
    }
    await this.synchronize(tenant, provider, tokens);
    return toTokenSet(tokens);
  }

  async refresh(identity: Identity, refreshToken: string): Promise<TokenSet> {
    required(refreshToken, 'refreshToken');
    const { provider } = await this.tenantAndProvider(identity, 'BAD_USER_INPUT');
    try {
      return toTokenSet(await tokenRequest(provider, { grant_type: 'refresh_token', refresh_token: refreshToken }));
    } catch (e) {
      throw idpFailure(e, 'BAD_USER_INPUT', 'Refresh token invalid, expired or revoked');
    }
  }

  /**
   * Invalidates the refresh token at the provider: introspection first (revocation endpoints
   * answer 200 even for unknown tokens, so it is the only way to report an invalid one), then
   * RFC 7009 revocation, or a Keycloak-style end-session POST when no revocation endpoint exists.
   */
  async logout(identity: Identity, refreshToken: string): Promise<void> {
    required(refreshToken, 'refreshToken');
    const { provider } = await this.tenantAndProvider(identity, 'BAD_USER_INPUT');
    const invalid = () => badInput('Refresh token invalid or expired, or rejected by the provider');
    try {
      const doc = await discover(provider.issuerUri);
      const introspection = provider.introspectionUri ?? str(doc?.introspection_endpoint);
      if (introspection) {
        const { status, body } = await postForm(provider, introspection, { token: refreshToken, token_type_hint: 'refresh_token' });
        if (status >= 400 || !(body && typeof body === 'object' && (body as { active?: unknown }).active === true)) throw invalid();
      }
      const revocation = str(doc?.revocation_endpoint);
      const target = revocation ?? provider.endSessionUri;
      if (!target) throw appError('UNAVAILABLE', 'The identity provider offers no way to revoke tokens');
      const params: Record<string, string> = revocation
        ? { token: refreshToken, token_type_hint: 'refresh_token' }
        : { refresh_token: refreshToken, client_id: provider.clientId };
      const { status } = await postForm(provider, target, params);
      if (status >= 400) throw invalid();
    } catch (e) {
      if (e instanceof IdpError) throw idpFailure(e, 'BAD_USER_INPUT', 'Refresh token rejected by the provider');
      throw e;
    }
  }

  private async synchronize(tenant: TenantRow, provider: OidcProviderRow, tokens: TokenResponse): Promise<void> {
    let access: JWTPayload;
    try {
      access = await verifyProviderToken(provider, tokens.access_token);
    } catch (e) {
      if (isProviderUnavailable(e)) throw appError('UNAVAILABLE', 'Identity provider keys unreachable');
      throw unauthenticated('The identity provider issued a token that does not verify for this tenant');
    }
    let id: JWTPayload = {};
    if (tokens.id_token) {
      try { id = decodeJwt(tokens.id_token); } catch { id = {}; }
    }
    const sub = String(access.sub);
    const claims: ProviderClaims = {
      sub,
      username: str(access.preferred_username) ?? str(id.preferred_username) ?? str(access.email) ?? str(id.email) ?? sub,
      email: str(access.email) ?? str(id.email),
      name: str(access.name) ?? str(id.name),
    };
    const { created } = await syncUser(this.deps.txDb, tenant, claims);
    // edges may have cached "not provisioned" for this subject
    if (created) await bumpAuthnEpoch(this.deps.redis);
  }
}

function toTokenSet(t: TokenResponse): TokenSet {
  if (!t.refresh_token) throw appError('UNAVAILABLE', 'The identity provider issued no refresh token');
  return {
    access_token: t.access_token,
    refresh_token: t.refresh_token,
    token_type: 'Bearer',
    expires_in: typeof t.expires_in === 'number' ? t.expires_in : 300,
    id_token: t.id_token ?? null,
    scope: t.scope ?? null,
  };
}
