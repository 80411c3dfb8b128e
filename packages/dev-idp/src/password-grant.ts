import { errors, type Client, type GrantTypeHandler, type Provider, type ResourceServerInfo } from 'oidc-provider';
import type { UserDirectory } from './accounts.js';

export const PASSWORD_GRANT_TYPE = 'password';
export const PASSWORD_GRANT_PARAMETERS = ['username', 'password', 'scope'];

export interface PasswordGrantOptions {
  provider: Provider;
  users: UserDirectory;
  /** The single resource every access token is issued for. */
  resource: string;
  resourceServerInfo: (client: Client) => ResourceServerInfo;
  supportedScopes: ReadonlySet<string>;
  /** Used when the request carries no `scope` (RFC 6749 section 3.3). */
  defaultScope: string;
}

function requiredString(params: Record<string, unknown>, name: string): string {
  const value = params[name];
  if (typeof value !== 'string' || value === '') {
    throw new errors.InvalidRequest(`missing required parameter '${name}'`);
  }
  return value;
}

/**
 * Resource Owner Password Credentials (RFC 6749 section 4.3), kept only for the
 * platform's deprecated login endpoint. It mirrors what oidc-provider's own
 * authorization_code handler persists (a Grant plus grant-bound tokens), so the
 * refresh token it returns is an ordinary one: the built-in refresh_token
 * grant rotates it, revocation and revokeByGrantId remove it.
 */
export function createPasswordGrantHandler(options: PasswordGrantOptions): GrantTypeHandler {
  const { provider, users, resource, resourceServerInfo, supportedScopes, defaultScope } = options;

  return async (ctx) => {
    const { client, params } = ctx.oidc;
    const username = requiredString(params, 'username');
    const password = requiredString(params, 'password');

    const rawScope = typeof params.scope === 'string' && params.scope.trim() !== '' ? params.scope : defaultScope;
    const scopes = new Set(rawScope.split(' ').filter((scope) => scope !== ''));
    for (const scope of scopes) {
      if (!supportedScopes.has(scope)) throw new errors.InvalidScope('requested scope is not supported', scope);
    }

    const user = users.authenticate(username, password);
    if (!user) throw new errors.InvalidGrant('invalid resource owner credentials');
    const account = users.accountFor(user.sub);
    if (!account) throw new errors.InvalidGrant('account not found');
    ctx.oidc.entity('Account', account);

    const info = resourceServerInfo(client);
    const resourceScopes = new Set([...scopes].filter((scope) => new Set(info.scope.split(' ')).has(scope)));

    const grant = new provider.Grant({ accountId: account.accountId, clientId: client.clientId });
    grant.addOIDCScope([...scopes].join(' '));
    grant.addResourceScope(resource, [...resourceScopes].join(' '));
    const grantId = await grant.save();
    ctx.oidc.entity('Grant', grant);

    // There is no browser session behind this grant, so nothing may be bound to one.
    const accessToken = new provider.AccessToken({
      accountId: account.accountId,
      client,
      grantId,
      gty: PASSWORD_GRANT_TYPE,
      expiresWithSession: false,
    });
    accessToken.resourceServer = new provider.ResourceServer(resource, info);
    accessToken.scope = grant.getResourceScopeFiltered(resource, resourceScopes);
    ctx.oidc.entity('AccessToken', accessToken);
    const accessTokenValue = await accessToken.save();

    const authTime = Math.floor(Date.now() / 1000);
    let refreshTokenValue: string | undefined;
    if (client.grantTypeAllowed('refresh_token')) {
      const refreshToken = new provider.RefreshToken({
        accountId: account.accountId,
        client,
        grantId,
        gty: PASSWORD_GRANT_TYPE,
        scope: [...scopes].join(' '),
        resource,
        rotations: 0,
        expiresWithSession: false,
        authTime,
        amr: ['pwd'],
      });
      ctx.oidc.entity('RefreshToken', refreshToken);
      refreshTokenValue = await refreshToken.save();
    }

    let idTokenValue: string | undefined;
    if (scopes.has('openid')) {
      const idToken = new provider.IdToken({ ...(await account.claims('id_token', rawScope, {}, [])) }, { ctx });
      idToken.scope = grant.getOIDCScopeFiltered(scopes);
      idToken.set('auth_time', authTime);
      idToken.set('amr', ['pwd']);
      idTokenValue = await idToken.issue({ use: 'idtoken' });
    }

    ctx.body = {
      access_token: accessTokenValue,
      token_type: accessToken.tokenType,
      expires_in: accessToken.expiration,
      ...(accessToken.scope ? { scope: accessToken.scope } : {}),
      ...(idTokenValue === undefined ? {} : { id_token: idTokenValue }),
      ...(refreshTokenValue === undefined ? {} : { refresh_token: refreshTokenValue }),
    };
  };
}
