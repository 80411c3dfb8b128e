import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import Provider, {
  errors,
  type Client,
  type ClientMetadata,
  type Configuration,
  type KoaContextWithOIDC,
  type ResourceServerInfo,
} from 'oidc-provider';
import { z } from 'zod';
import { placeholderEmail, subjectForUsername, UserDirectory, type DevIdpUserRecord } from './accounts.js';
import { escapeHtml } from './html.js';
import { handleInteraction } from './interactions.js';
import { loadPersistedKeys } from './keys.js';
import { createPasswordGrantHandler, PASSWORD_GRANT_PARAMETERS, PASSWORD_GRANT_TYPE } from './password-grant.js';
import { createRedisAdapterFactory } from './redis-adapter.js';
import { createUserinfoHandler } from './userinfo.js';

export interface DevIdpUser {
  username: string;
  password: string;
  /** Defaults to a UUID derived from sha256(username): stable across restarts. */
  sub?: string;
  /** Defaults to `<username>@dev-idp.invalid` with `email_verified: false`. */
  email?: string;
  /** Defaults to the username. */
  name?: string;
}

export interface DevIdpClient {
  clientId: string;
  /** Confidential client when set (client_secret_basic and client_secret_post accepted). */
  clientSecret?: string;
  /** Exact-match redirect URIs. */
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  /**
   * Default ['authorization_code','refresh_token','password','client_credentials'].
   * From the default set, authorization_code is dropped for clients without
   * redirect URIs and client_credentials for public clients; asking for either
   * explicitly in those situations is a configuration error.
   */
  grantTypes?: string[];
}

export interface DevIdpOptions {
  /** 0 = random free port. */
  port: number;
  /** Default '127.0.0.1'. Must be a loopback address or `localhost`. */
  host?: string;
  /**
   * Default `http://${host}:${actualPort}`. When set, the provider trusts
   * X-Forwarded-* headers (it is expected to sit behind a local proxy). Must not have a path.
   */
  issuer?: string;
  /** Persistent files (signing keys, cookie keys) live here; created if missing. */
  dataDir: string;
  /** oidc-provider adapter storage (grants, sessions, refresh tokens); survives restarts. */
  redisUrl: string;
  /** Key prefix, default 'devidp:'. */
  redisPrefix?: string;
  users: DevIdpUser[];
  clients: DevIdpClient[];
  /** Default 300. */
  accessTokenTtlSeconds?: number;
  /** Default 30 days. */
  refreshTokenTtlSeconds?: number;
}

export interface DevIdp {
  issuer: string;
  port: number;
  jwksUri: string;
  tokenEndpoint: string;
  authorizationEndpoint: string;
  /** Always set by startDevIdp; optional only to keep the original interface shape. */
  userinfoEndpoint?: string;
  revocationEndpoint?: string;
  endSessionEndpoint?: string;
  close(): Promise<void>;
}

/** Every access token is issued for this single resource; its `aud` is the requesting client's id. */
export const DEV_IDP_API_RESOURCE = 'urn:voxgate:api';
const RESOURCE_SCOPE = 'openid profile email offline_access';
const SUPPORTED_SCOPES = new Set(['openid', 'profile', 'email', 'offline_access']);
const PASSWORD_DEFAULT_SCOPE = 'openid profile email';
// preferred_username is released with plain `openid` as well, so every ID token names the user.
const CLAIMS_BY_SCOPE: Record<string, string[]> = {
  openid: ['sub', 'preferred_username'],
  profile: ['name', 'preferred_username'],
  email: ['email', 'email_verified'],
};
const DEFAULT_GRANT_TYPES = ['authorization_code', 'refresh_token', PASSWORD_GRANT_TYPE, 'client_credentials'];
const SUPPORTED_GRANT_TYPES = ['authorization_code', 'refresh_token', PASSWORD_GRANT_TYPE, 'client_credentials'] as const;
const DAY = 24 * 60 * 60;

const uri = z.string().refine((value) => URL.canParse(value), 'must be an absolute URI');

const optionsSchema = z.object({
  port: z.number().int().min(0).max(65535),
  host: z.string().min(1).optional(),
  issuer: uri.optional(),
  dataDir: z.string().min(1),
  redisUrl: z.string().min(1),
  redisPrefix: z.string().min(1).optional(),
  users: z.array(
    z.object({
      username: z.string().min(1),
      password: z.string().min(1),
      sub: z.string().min(1).optional(),
      email: z.string().min(1).optional(),
      name: z.string().min(1).optional(),
    }),
  ),
  clients: z.array(
    z.object({
      clientId: z.string().min(1),
      clientSecret: z.string().min(1).optional(),
      redirectUris: z.array(uri).optional(),
      postLogoutRedirectUris: z.array(uri).optional(),
      grantTypes: z.array(z.enum(SUPPORTED_GRANT_TYPES)).min(1).optional(),
    }),
  ),
  accessTokenTtlSeconds: z.number().int().positive().optional(),
  refreshTokenTtlSeconds: z.number().int().positive().optional(),
});

type ParsedOptions = z.infer<typeof optionsSchema>;
type ParsedClient = ParsedOptions['clients'][number];

function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

function normalizeUsers(users: ParsedOptions['users']): DevIdpUserRecord[] {
  const records = users.map((user) => ({
    username: user.username,
    password: user.password,
    sub: user.sub ?? subjectForUsername(user.username),
    email: user.email ?? placeholderEmail(user.username),
    emailVerified: user.email !== undefined,
    name: user.name ?? user.username,
  }));
  for (const field of ['username', 'sub'] as const) {
    const seen = new Set<string>();
    for (const record of records) {
      if (seen.has(record[field])) throw new Error(`dev-idp: duplicate user ${field} "${record[field]}"`);
      seen.add(record[field]);
    }
  }
  return records;
}

function toClientMetadata(client: ParsedClient): ClientMetadata {
  const confidential = client.clientSecret !== undefined;
  const redirectUris = client.redirectUris ?? [];
  const explicit = client.grantTypes !== undefined;
  const grantTypes = [...new Set(client.grantTypes ?? DEFAULT_GRANT_TYPES)].filter((grantType) => {
    let reason: string | undefined;
    if (grantType === 'authorization_code' && redirectUris.length === 0) reason = 'needs redirectUris';
    if (grantType === 'client_credentials' && !confidential) reason = 'needs a clientSecret';
    if (reason && explicit) throw new Error(`dev-idp: client "${client.clientId}": ${grantType} ${reason}`);
    return reason === undefined;
  });
  // Custom-scheme redirect URIs (mobile/desktop apps) are only accepted for native clients.
  const allUris = [...redirectUris, ...(client.postLogoutRedirectUris ?? [])];
  const native = allUris.some((value) => !['http:', 'https:'].includes(new URL(value).protocol));
  return {
    client_id: client.clientId,
    ...(confidential ? { client_secret: client.clientSecret } : {}),
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    redirect_uris: redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
    grant_types: grantTypes,
    response_types: grantTypes.includes('authorization_code') ? ['code'] : [],
    application_type: native ? 'native' : 'web',
  };
}

function sendServerError(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = 500;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify({ error: 'server_error', error_description: 'oops! something went wrong' }));
}

function simplePage(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.type = 'html';
  ctx.body = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:system-ui,sans-serif;max-width:420px;margin:48px auto">${body}</body></html>`;
}

export async function startDevIdp(options: DevIdpOptions): Promise<DevIdp> {
  const parsed = optionsSchema.parse(options);
  const host = parsed.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    throw new Error(`dev-idp: refusing to listen on non-loopback host "${host}" (development credentials are plaintext)`);
  }
  if (parsed.issuer !== undefined) {
    const { pathname, search, hash } = new URL(parsed.issuer);
    if (pathname !== '/' || search || hash) throw new Error('dev-idp: issuer must be an origin without path, query or fragment');
  }
  const accessTokenTtl = parsed.accessTokenTtlSeconds ?? 300;
  const refreshTokenTtl = parsed.refreshTokenTtlSeconds ?? 30 * DAY;
  const users = new UserDirectory(normalizeUsers(parsed.users));
  const clientMetadata = parsed.clients.map(toClientMetadata);
  if (new Set(clientMetadata.map((client) => client.client_id)).size !== clientMetadata.length) {
    throw new Error('dev-idp: duplicate clientId');
  }
  const corsOriginsByClient = new Map(
    clientMetadata.map((client) => [
      client.client_id,
      new Set(client.redirect_uris.map((value) => new URL(value).origin).filter((origin) => origin !== 'null')),
    ]),
  );

  const keys = await loadPersistedKeys(parsed.dataDir);

  const redis = new Redis(parsed.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 3 });
  let lastRedisError = '';
  redis.on('error', (error: Error) => {
    // ioredis retries on its own; report each distinct failure once instead of on every retry.
    if (error.message !== lastRedisError) console.error(`dev-idp: redis error: ${error.message}`);
    lastRedisError = error.message;
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    // ioredis rejects with a generic "Connection is closed"; the useful cause came through the error event.
    const cause = lastRedisError || (error instanceof Error ? error.message : String(error));
    throw new Error(`dev-idp: cannot connect to redis: ${cause}`, { cause: error });
  }

  let dispatch: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const server = createServer((req, res) => {
    if (!dispatch) {
      res.statusCode = 503;
      res.setHeader('Retry-After', '1');
      res.end();
      return;
    }
    dispatch(req, res).catch((error: unknown) => {
      console.error('dev-idp: request failed', error);
      sendServerError(res);
    });
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(parsed.port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    await redis.quit().catch(() => undefined);
    throw error;
  }
  server.on('error', (error) => console.error('dev-idp: http server error', error));
  const port = (server.address() as AddressInfo).port;
  const issuer = parsed.issuer ?? `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;

  const close = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Give in-flight requests a moment, then cut keep-alive sockets so the process can exit.
    const force = setTimeout(() => server.closeAllConnections(), 2000);
    force.unref();
    await closed;
    clearTimeout(force);
    if (redis.status !== 'end') await redis.quit().catch(() => redis.disconnect());
  };

  try {
    const resourceServerInfo = (client: Client): ResourceServerInfo => ({
      scope: RESOURCE_SCOPE,
      audience: client.clientId,
      accessTokenFormat: 'jwt',
      accessTokenTTL: accessTokenTtl,
      jwt: { sign: { alg: 'RS256' } },
    });

    const configuration: Configuration = {
      adapter: createRedisAdapterFactory(redis, parsed.redisPrefix ?? 'devidp:'),
      clients: clientMetadata,
      jwks: keys.jwks,
      cookies: { keys: keys.cookieKeys },
      claims: CLAIMS_BY_SCOPE,
      scopes: [...SUPPORTED_SCOPES],
      clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
      // Authorization code only: no implicit or hybrid flows for a PKCE-everywhere provider.
      responseTypes: ['code'],
      findAccount: async (_ctx, sub) => users.accountFor(sub),
      extraTokenClaims: (_ctx, token) => {
        const user = token.accountId === undefined ? undefined : users.findBySub(token.accountId);
        return user ? UserDirectory.accessTokenClaimsOf(user) : undefined;
      },
      // Refresh tokens whenever the client may use them, not only with offline_access.
      issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      // Tokens outlive the browser SSO session; ending it (logout) does not revoke them, revocation does.
      expiresWithSession: () => false,
      rotateRefreshToken: true,
      pkce: { required: () => true },
      conformIdTokenClaims: false,
      clientBasedCORS: (_ctx, origin, client) => corsOriginsByClient.get(client.clientId)?.has(origin) === true,
      renderError: (ctx, out) => {
        const rows = Object.entries(out)
          .map(([key, value]) => `<p><strong>${escapeHtml(key)}</strong>: ${escapeHtml(String(value))}</p>`)
          .join('');
        simplePage(ctx, 'Error', `<h1>Something went wrong</h1>${rows}`);
      },
      ttl: {
        AccessToken: accessTokenTtl,
        ClientCredentials: accessTokenTtl,
        AuthorizationCode: 60,
        IdToken: 60 * 60,
        Interaction: 60 * 60,
        Session: 14 * DAY,
        RefreshToken: refreshTokenTtl,
        // Rotation re-issues refresh tokens against the same grant; the grant must outlive them.
        Grant: Math.max(refreshTokenTtl, 365 * DAY),
      },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        revocation: {
          enabled: true,
          allowedPolicy: (_ctx, client, token) => {
            if (token.clientId === client.clientId) return true;
            if (client.clientAuthMethod === 'none') return false;
            throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
          },
        },
        // the platform's logout introspects a refresh token first: revocation answers 200 even for unknown tokens
        introspection: {
          enabled: true,
          allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId && client.clientAuthMethod !== 'none',
        },
        userinfo: { enabled: true },
        rpInitiatedLogout: {
          enabled: true,
          // Sign out without a second click: the confirm form submits itself (the button remains for no-JS).
          logoutSource: (ctx, form) => {
            simplePage(
              ctx,
              'Sign out',
              `<h1>Signing out of ${escapeHtml(ctx.host)}</h1>${form}
<input type="hidden" name="logout" value="yes" form="op.logoutForm">
<button type="submit" form="op.logoutForm">Sign out</button>
<script>document.getElementById('op.logoutForm').submit()</script>`,
            );
          },
          postLogoutSuccessSource: (ctx) => simplePage(ctx, 'Signed out', '<h1>You are signed out.</h1>'),
        },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => DEV_IDP_API_RESOURCE,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource, client) => {
            if (resource !== DEV_IDP_API_RESOURCE) throw new errors.InvalidTarget();
            return resourceServerInfo(client);
          },
        },
      },
    };

    const provider = new Provider(issuer, configuration);
    if (parsed.issuer !== undefined) provider.proxy = true;
    provider.on('server_error', (_ctx: unknown, error: unknown) => console.error('dev-idp: server_error', error));

    provider.registerGrantType(
      PASSWORD_GRANT_TYPE,
      createPasswordGrantHandler({
        provider,
        users,
        resource: DEV_IDP_API_RESOURCE,
        resourceServerInfo,
        supportedScopes: SUPPORTED_SCOPES,
        defaultScope: PASSWORD_DEFAULT_SCOPE,
      }),
      PASSWORD_GRANT_PARAMETERS,
    );

    const userinfoPath = provider.pathFor('userinfo');
    const handleUserinfo = createUserinfoHandler({
      issuer,
      verificationKeys: keys.verificationKeys,
      users,
      claimsByScope: CLAIMS_BY_SCOPE,
      corsOriginsByClient,
    });
    const providerCallback = provider.callback();

    dispatch = async (req, res) => {
      const { pathname } = new URL(req.url ?? '/', 'http://dev-idp.invalid');
      if (await handleInteraction(provider, users, req, res, pathname)) return;
      if (pathname === userinfoPath && handleUserinfo(req, res)) return;
      await providerCallback(req, res);
    };

    const url = (name: string) => new URL(provider.pathFor(name), issuer).href;
    return {
      issuer,
      port,
      jwksUri: url('jwks'),
      tokenEndpoint: url('token'),
      authorizationEndpoint: url('authorization'),
      userinfoEndpoint: url('userinfo'),
      revocationEndpoint: url('revocation'),
      endSessionEndpoint: url('end_session'),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
