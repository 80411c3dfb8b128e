import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDevIdp, type DevIdp, type DevIdpOptions } from '../src/index.js';
import { subjectForUsername } from '../src/accounts.js';

// ---------------------------------------------------------------------------
// jose: only the two functions used here. It is not a direct dependency of
// this package (nor hoisted to the workspace root), so when a bare import
// fails it is loaded from openid-client's own dependency tree, which always
// has it.
// ---------------------------------------------------------------------------
type JWKSResolver = (...args: never[]) => unknown;
interface JoseSubset {
  createRemoteJWKSet(url: URL): JWKSResolver;
  jwtVerify(
    jwt: string,
    key: JWKSResolver,
    options: { issuer: string; audience: string },
  ): Promise<{ payload: Record<string, unknown>; protectedHeader: Record<string, unknown> }>;
}

function isJose(value: unknown): value is JoseSubset {
  const candidate = value as Partial<Record<keyof JoseSubset, unknown>> | null;
  return typeof candidate?.createRemoteJWKSet === 'function' && typeof candidate.jwtVerify === 'function';
}

async function loadJose(): Promise<JoseSubset> {
  const specifier: string = 'jose';
  let loaded: unknown;
  try {
    loaded = await import(/* @vite-ignore */ specifier);
  } catch {
    const require = createRequire(import.meta.url);
    const viaOpenidClient = createRequire(require.resolve('openid-client')).resolve('jose');
    loaded = await import(/* @vite-ignore */ pathToFileURL(viaOpenidClient).href);
  }
  if (!isJose(loaded)) throw new Error('jose did not load');
  return loaded;
}

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------
// the suite's global setup provides the Redis the whole run uses (REDIS_URL or a private one)
const REDIS_URL = inject('redisUrl');
const PREFIX = `devidp-test:${process.pid}:${randomUUID()}:`;
const CALLBACK = 'http://127.0.0.1:9/callback';
const BACKEND_CALLBACK = 'http://127.0.0.1:9/backend/callback';
const LOGGED_OUT = 'http://127.0.0.1:9/logged-out';

const ALICE = { username: 'alice', password: 'alice-pass', email: 'alice@example.test', name: 'Alice Liddell' };
const BOB = { username: 'bob', password: 'bob-pass' };

let dataDir: string;
let idp: DevIdp;
let jose: JoseSubset;

function idpOptions(port: number): DevIdpOptions {
  return {
    port,
    dataDir,
    redisUrl: REDIS_URL,
    redisPrefix: PREFIX,
    users: [ALICE, BOB],
    clients: [
      { clientId: 'web-app', redirectUris: [CALLBACK], postLogoutRedirectUris: [LOGGED_OUT] },
      { clientId: 'backend', clientSecret: 'backend-secret', redirectUris: [BACKEND_CALLBACK] },
      { clientId: 'cli' },
    ],
  };
}

async function config(clientId: string, clientSecret?: string): Promise<client.Configuration> {
  return client.discovery(
    new URL(idp.issuer),
    clientId,
    clientSecret,
    clientSecret === undefined ? client.None() : undefined,
    { execute: [client.allowInsecureRequests] },
  );
}

async function verifyAccessToken(token: string, audience: string) {
  const jwks = jose.createRemoteJWKSet(new URL(idp.jwksUri));
  return jose.jwtVerify(token, jwks, { issuer: idp.issuer, audience });
}

async function passwordGrant(cfg: client.Configuration, user: { username: string; password: string }) {
  return client.genericGrantRequest(cfg, 'password', {
    username: user.username,
    password: user.password,
    scope: 'openid profile email',
  });
}

async function expectOAuthError(promise: Promise<unknown>, error: string, status: number): Promise<void> {
  const rejection: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(rejection).toBeInstanceOf(client.ResponseBodyError);
  const bodyError = rejection as client.ResponseBodyError;
  expect(bodyError.error).toBe(error);
  expect(bodyError.status).toBe(status);
}

// ---------------------------------------------------------------------------
// A minimal browser: manual redirects and a cookie jar.
// ---------------------------------------------------------------------------
class Browser {
  private readonly cookies = new Map<string, string>();

  async fetch(url: URL, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const setCookie of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = setCookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', val = ''] = attribute.trim().split('=');
        if (key.toLowerCase() === 'max-age') return Number(val) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(val) <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /**
   * Follows redirects until one points at `stopAt` (returned without being
   * fetched, as a real client would receive it) or a non-redirect response.
   */
  async follow(res: Response, from: URL, stopAt: string): Promise<{ callback?: URL; page?: Response; url: URL }> {
    let current = res;
    let url = from;
    for (let hops = 0; hops < 20; hops += 1) {
      if (current.status < 300 || current.status >= 400) return { page: current, url };
      const location = current.headers.get('location');
      if (!location) throw new Error(`redirect without location from ${url.href}`);
      url = new URL(location, url);
      if (url.href.startsWith(stopAt)) return { callback: url, url };
      current = await this.fetch(url);
    }
    throw new Error('too many redirects');
  }
}

interface HtmlForm {
  action: URL;
  fields: Record<string, string>;
}

function parseForms(html: string, base: URL): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attributes = match[1] ?? '';
    const body = match[2] ?? '';
    const action = /action="([^"]*)"/i.exec(attributes)?.[1] ?? base.href;
    const fields: Record<string, string> = {};
    for (const input of body.matchAll(/<input\b([^>]*)>/gi)) {
      const name = /name="([^"]*)"/i.exec(input[1] ?? '')?.[1];
      const value = /value="([^"]*)"/i.exec(input[1] ?? '')?.[1] ?? '';
      if (name) fields[name] = value;
    }
    forms.push({ action: new URL(action.replace(/&amp;/g, '&'), base), fields });
  }
  return forms;
}

async function openLoginPage(browser: Browser, authorizationUrl: URL, redirectUri: string) {
  const first = await browser.fetch(authorizationUrl);
  const { page, url, callback } = await browser.follow(first, authorizationUrl, redirectUri);
  if (!page) throw new Error(`expected a login page, got redirect to ${callback?.href}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const login = parseForms(html, url).find((form) => form.action.pathname.endsWith('/login'));
  if (!login) throw new Error(`no login form on ${url.href}`);
  expect(login.fields).toHaveProperty('username');
  expect(login.fields).toHaveProperty('password');
  return { login, html };
}

async function authorize(cfg: client.Configuration, redirectUri: string, user: { username: string; password: string }) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(cfg, {
    redirect_uri: redirectUri,
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  const browser = new Browser();
  const { login } = await openLoginPage(browser, authorizationUrl, redirectUri);
  const posted = await browser.fetch(login.action, {
    method: 'POST',
    form: { ...login.fields, username: user.username, password: user.password },
  });
  const { callback } = await browser.follow(posted, login.action, redirectUri);
  if (!callback) throw new Error('login did not reach the redirect_uri');
  expect(callback.searchParams.get('code')).toBeTruthy();
  const tokens = await client.authorizationCodeGrant(cfg, callback, { pkceCodeVerifier: codeVerifier, expectedState: state });
  return { tokens, browser };
}

// ---------------------------------------------------------------------------
beforeAll(async () => {
  jose = await loadJose();
  dataDir = await mkdtemp(join(tmpdir(), 'dev-idp-test-'));
  idp = await startDevIdp(idpOptions(0));
}, 30_000);

afterAll(async () => {
  await idp?.close();
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 30_000);

describe('dev-idp', () => {
  it('serves discovery and a persisted RS256 JWKS that verifies its access tokens', async () => {
    const cfg = await config('cli');
    const metadata = cfg.serverMetadata();
    expect(metadata.issuer).toBe(idp.issuer);
    expect(metadata.jwks_uri).toBe(idp.jwksUri);
    expect(metadata.token_endpoint).toBe(idp.tokenEndpoint);
    expect(metadata.authorization_endpoint).toBe(idp.authorizationEndpoint);
    expect(metadata.code_challenge_methods_supported).toContain('S256');
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials', 'password']),
    );

    const jwks = (await (await fetch(idp.jwksUri)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(jwks.keys[0]).not.toHaveProperty('d');
    expect((await stat(join(dataDir, 'dev-idp-jwks.json'))).mode & 0o777).toBe(0o600);

    const tokens = await passwordGrant(cfg, ALICE);
    const { payload, protectedHeader } = await verifyAccessToken(tokens.access_token, 'cli');
    expect(protectedHeader.alg).toBe('RS256');
    expect(protectedHeader.kid).toBe(jwks.keys[0]?.kid);
    expect(payload).toMatchObject({
      iss: idp.issuer,
      aud: 'cli',
      client_id: 'cli',
      sub: subjectForUsername('alice'),
      preferred_username: 'alice',
      email: ALICE.email,
      name: ALICE.name,
    });
  });

  it('runs the PKCE authorization-code flow through the HTML login page and refuses requests without PKCE', async () => {
    const cfg = await config('web-app');
    const { tokens } = await authorize(cfg, CALLBACK, ALICE);

    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.refresh_token).toBeTruthy();
    const idClaims = tokens.claims();
    expect(idClaims?.preferred_username).toBe('alice');
    expect(idClaims?.sub).toBe(subjectForUsername('alice'));
    expect(idClaims?.email).toBe(ALICE.email);
    expect(idClaims?.aud).toBe('web-app');

    const { payload } = await verifyAccessToken(tokens.access_token, 'web-app');
    expect(payload).toMatchObject({ sub: subjectForUsername('alice'), preferred_username: 'alice', email: ALICE.email, name: ALICE.name });

    const userinfo = await client.fetchUserInfo(cfg, tokens.access_token, subjectForUsername('alice'));
    expect(userinfo).toMatchObject({ preferred_username: 'alice', email: ALICE.email, name: ALICE.name });

    // Without code_challenge the provider refuses the request at the authorization endpoint,
    // for the public client and (unlike oidc-provider's default) for the confidential one too.
    for (const [clientCfg, redirectUri] of [
      [cfg, CALLBACK],
      [await config('backend', 'backend-secret'), BACKEND_CALLBACK],
    ] as const) {
      const noPkce = client.buildAuthorizationUrl(clientCfg, { redirect_uri: redirectUri, scope: 'openid', state: client.randomState() });
      const browser = new Browser();
      const { callback, page } = await browser.follow(await browser.fetch(noPkce), noPkce, redirectUri);
      expect(page).toBeUndefined();
      expect(callback?.searchParams.get('error')).toBe('invalid_request');
      expect(callback?.searchParams.get('error_description') ?? '').toMatch(/PKCE/i);
      expect(callback?.searchParams.get('code')).toBeNull();
    }
  });

  it('re-renders the login page on a wrong password without logging in', async () => {
    const cfg = await config('web-app');
    const verifier = client.randomPKCECodeVerifier();
    const authorizationUrl = client.buildAuthorizationUrl(cfg, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: client.randomState(),
    });
    const browser = new Browser();
    const { login } = await openLoginPage(browser, authorizationUrl, CALLBACK);

    const rejected = await browser.fetch(login.action, { method: 'POST', form: { username: 'alice', password: 'nope<script>' } });
    expect(rejected.status).toBe(200);
    expect(rejected.headers.get('location')).toBeNull();
    const html = await rejected.text();
    expect(html).toMatch(/Invalid username or password/);
    expect(html).not.toContain('nope<script>');
    expect(parseForms(html, login.action).some((form) => 'password' in form.fields)).toBe(true);

    const unknownUser = await browser.fetch(login.action, {
      method: 'POST',
      form: { username: '"><img src=x>', password: 'x' },
    });
    expect(unknownUser.status).toBe(200);
    const unknownHtml = await unknownUser.text();
    expect(unknownHtml).toContain('&quot;&gt;&lt;img src=x&gt;');
    expect(unknownHtml).not.toContain('"><img src=x>');

    // The same interaction still accepts the right credentials afterwards.
    const accepted = await browser.fetch(login.action, { method: 'POST', form: { username: 'alice', password: ALICE.password } });
    const { callback } = await browser.follow(accepted, login.action, CALLBACK);
    expect(callback?.searchParams.get('code')).toBeTruthy();
  });

  it('supports the password grant and answers wrong credentials with invalid_grant (400)', async () => {
    const cfg = await config('cli');
    const tokens = await passwordGrant(cfg, BOB);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.expires_in).toBe(300);
    const idClaims = tokens.claims();
    expect(idClaims?.preferred_username).toBe('bob');
    expect(idClaims?.aud).toBe('cli');
    const { payload } = await verifyAccessToken(tokens.access_token, 'cli');
    expect(payload).toMatchObject({ sub: subjectForUsername('bob'), preferred_username: 'bob', name: 'bob' });
    expect(typeof payload.email).toBe('string');

    await expectOAuthError(passwordGrant(cfg, { username: 'bob', password: 'wrong' }), 'invalid_grant', 400);
    await expectOAuthError(passwordGrant(cfg, { username: 'nobody', password: 'x' }), 'invalid_grant', 400);

    // The raw wire format is standard OAuth JSON.
    const raw = await fetch(idp.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: 'cli', username: 'bob', password: 'wrong' }),
    });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as Record<string, unknown>;
    expect(body.error).toBe('invalid_grant');
    expect(typeof body.error_description).toBe('string');
  });

  it('rotates refresh tokens and rejects reuse of a rotated one', async () => {
    const cfg = await config('cli');
    const initial = await passwordGrant(cfg, ALICE);
    const oldRefreshToken = initial.refresh_token;
    if (!oldRefreshToken) throw new Error('no refresh token');

    const refreshed = await client.refreshTokenGrant(cfg, oldRefreshToken);
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(oldRefreshToken);
    expect(refreshed.claims()?.preferred_username).toBe('alice');
    const { payload } = await verifyAccessToken(refreshed.access_token, 'cli');
    expect(payload).toMatchObject({ sub: subjectForUsername('alice'), preferred_username: 'alice', email: ALICE.email });

    await expectOAuthError(client.refreshTokenGrant(cfg, oldRefreshToken), 'invalid_grant', 400);

    // Code-flow refresh tokens rotate too (confidential client, client_secret_post).
    const backend = await config('backend', 'backend-secret');
    const { tokens } = await authorize(backend, BACKEND_CALLBACK, BOB);
    if (!tokens.refresh_token) throw new Error('no refresh token from code flow');
    const next = await client.refreshTokenGrant(backend, tokens.refresh_token);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    await expectOAuthError(client.refreshTokenGrant(backend, tokens.refresh_token), 'invalid_grant', 400);
  });

  it('issues client_credentials tokens to a confidential client and rejects a wrong secret', async () => {
    const cfg = await config('backend', 'backend-secret');
    const tokens = await client.clientCredentialsGrant(cfg);
    expect(tokens.refresh_token).toBeUndefined();
    const { payload } = await verifyAccessToken(tokens.access_token, 'backend');
    expect(payload).toMatchObject({ iss: idp.issuer, aud: 'backend', sub: 'backend', client_id: 'backend' });
    expect(payload).not.toHaveProperty('preferred_username');

    // client_secret_basic is accepted as well.
    const basic = await fetch(idp.tokenEndpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('backend:backend-secret').toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    expect(basic.status).toBe(200);

    const wrong = await config('backend', 'not-the-secret');
    await expectOAuthError(client.clientCredentialsGrant(wrong), 'invalid_client', 401);

    // Public clients never get client_credentials.
    const raw = await fetch(idp.tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'cli' }),
    });
    expect(raw.status).toBe(400);
  });

  it('revokes refresh tokens and serves end_session without server errors', async () => {
    const cli = await config('cli');
    const tokens = await passwordGrant(cli, ALICE);
    if (!tokens.refresh_token) throw new Error('no refresh token');
    await client.tokenRevocation(cli, tokens.refresh_token);
    await expectOAuthError(client.refreshTokenGrant(cli, tokens.refresh_token), 'invalid_grant', 400);

    // RP-initiated logout from a real browser session.
    const web = await config('web-app');
    const { tokens: webTokens, browser } = await authorize(web, CALLBACK, ALICE);
    const endSession = client.buildEndSessionUrl(web, {
      id_token_hint: webTokens.id_token ?? '',
      post_logout_redirect_uri: LOGGED_OUT,
      state: 'bye',
    });
    const confirmPage = await browser.fetch(endSession);
    expect(confirmPage.status).toBe(200);
    const [logoutForm] = parseForms(await confirmPage.text(), endSession);
    if (!logoutForm) throw new Error('no logout form');
    const confirmed = await browser.fetch(logoutForm.action, { method: 'POST', form: { ...logoutForm.fields, logout: 'yes' } });
    const { callback } = await browser.follow(confirmed, logoutForm.action, LOGGED_OUT);
    expect(callback?.searchParams.get('state')).toBe('bye');

    // Without any session the endpoint still answers (an auto-submitting form), never a 5xx.
    const anonymous = await fetch(new URL(idp.endSessionEndpoint ?? endSession.href));
    expect(anonymous.status).toBeLessThan(500);
    expect(anonymous.status).toBe(200);
  });

  it('keeps keys, grants and refresh tokens across a restart', async () => {
    const cfg = await config('cli');
    const before = await passwordGrant(cfg, ALICE);
    if (!before.refresh_token) throw new Error('no refresh token');
    const { port, issuer } = idp;

    await idp.close();
    idp = await startDevIdp(idpOptions(port));
    expect(idp.issuer).toBe(issuer);

    // Fresh JWKS fetch from the restarted server verifies the token minted before the restart.
    const { payload } = await verifyAccessToken(before.access_token, 'cli');
    expect(payload.preferred_username).toBe('alice');

    const after = await client.refreshTokenGrant(await config('cli'), before.refresh_token);
    expect(after.refresh_token).toBeTruthy();
    expect(after.claims()?.sub).toBe(subjectForUsername('alice'));
  });
});
