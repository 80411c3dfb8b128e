import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp, type DevIdpClient, type DevIdpUser } from '@voxgate/dev-idp';
import type { ApiResponse, Caller } from '../support/http';
import { pkceLogin } from '../support/oidc-flow';
import { REDIRECT_URI as PLATFORM_REDIRECT_URI, startTestPlatform, type TestPlatform } from '../support/platform';


// ---------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------
interface TokenSet {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  id_token: string | null;
  scope: string | null;
}

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
}

interface RoleRef { id: string; slug: string; name: string; hierarchyOrder: number }
interface Me { id: string; username: string; role: RoleRef; tenant: { id: string; name: string } }
interface Tenant { id: string; name: string; enabled: boolean; firstLoginRole: RoleRef; defaultRole: RoleRef }

interface OidcProviderInput {
  clientId: string;
  clientSecret: string;
  issuerUri: string;
  tokenUri: string;
  jwkSetUri: string;
  authorizationUri?: string;
  endSessionUri?: string;
}

/** the redirect URI registered for the platform dev IdP's client (REDIRECT_URI of test/support/platform.ts) */
const REDIRECT_URI = PLATFORM_REDIRECT_URI;
const TOKEN_SET_FIELDS = ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type'];
const ALL_GRANTS = ['password', 'refresh_token', 'authorization_code', 'client_credentials'];

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------
let t: TestPlatform;
let idpDir: string;
const idps: DevIdp[] = [];
/** tenant-owned provider #1: alice, bob, carol; one confidential client per tenant */
let idp1: DevIdp;
/** tenant-owned provider #2: another "alice" with a different subject */
let idp2: DevIdp;
const roles = new Map<string, RoleRef>();

const ALICE: DevIdpUser = { username: 'alice', password: 'alice-pass', email: 'alice@acme.test', name: 'Alice' };
const BOB: DevIdpUser = { username: 'bob', password: 'bob-pass' };
const CAROL: DevIdpUser = { username: 'carol', password: 'carol-pass' };
const DAVE: DevIdpUser = { username: 'dave', password: 'dave-pass' };
const OTHER_ALICE: DevIdpUser = { username: 'alice', password: 'alice2-pass', sub: randomUUID() };

function idpClient(clientId: string): DevIdpClient {
  return { clientId, clientSecret: `${clientId}-secret`, redirectUris: [REDIRECT_URI], grantTypes: ALL_GRANTS };
}

async function startOwnIdp(users: DevIdpUser[], clientIds: string[]): Promise<DevIdp> {
  const idp = await startDevIdp({
    port: 0, dataDir: fs.mkdtempSync(path.join(idpDir, 'idp-')), redisUrl: t.redisUrl,
    redisPrefix: `auth-e2e:${process.pid}:${randomUUID()}:`, users, clients: clientIds.map(idpClient),
  });
  idps.push(idp);
  return idp;
}

async function providerFor(idp: DevIdp, clientId: string): Promise<OidcProviderInput> {
  const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as Record<string, string>;
  return {
    clientId, clientSecret: `${clientId}-secret`, issuerUri: doc.issuer ?? idp.issuer,
    tokenUri: doc.token_endpoint ?? idp.tokenEndpoint, jwkSetUri: doc.jwks_uri ?? idp.jwksUri,
    authorizationUri: doc.authorization_endpoint ?? idp.authorizationEndpoint,
    ...(doc.end_session_endpoint ? { endSessionUri: doc.end_session_endpoint } : {}),
  };
}

function role(slug: string): RoleRef {
  const r = roles.get(slug);
  if (!r) throw new Error(`role ${slug} not listed`);
  return r;
}

async function createTenant(name: string, oidcProvider?: OidcProviderInput): Promise<Tenant> {
  const res = await t.client.post<Tenant>('/api/v1/admin/tenants', {
    name, displayName: `Tenant ${name}`, firstLoginRoleId: role('tenant-admin').id, defaultRoleId: role('member').id,
    ...(oidcProvider ? { oidcProvider } : {}),
  }, { apiKey: t.rootKey });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function closedLoopbackPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

const login = (username: string, password: string, tenant?: string) =>
  t.client.post<TokenSet>('/api/v1/auth/login', { username, password }, tenant ? { tenant } : {});

async function loginOk(username: string, password: string, tenant?: string): Promise<TokenSet> {
  const res = await login(username, password, tenant);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const me = (caller: Caller) => t.client.get<Me>('/api/v1/users/me', caller);

function expectProblem(res: ApiResponse<unknown>, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  const body = res.body as Problem;
  expect(body).toMatchObject({ status, type: expect.any(String), title: expect.any(String), detail: expect.any(String) });
  expect(typeof body.code).toBe('string');
  if (code) expect(body.code).toBe(code);
}

function expectTokenSet(body: TokenSet): void {
  expect(Object.keys(body).sort()).toEqual(TOKEN_SET_FIELDS);
  expect(body.access_token).toEqual(expect.any(String));
  expect(body.access_token.split('.')).toHaveLength(3);
  expect(body.refresh_token).toEqual(expect.any(String));
  expect(body.refresh_token.length).toBeGreaterThan(0);
  expect(body.token_type).toBe('Bearer');
  expect(typeof body.expires_in).toBe('number');
  expect(Number.isInteger(body.expires_in)).toBe(true);
  expect(body.expires_in).toBeGreaterThan(0);
  expect(body.id_token === null || typeof body.id_token === 'string').toBe(true);
  expect(body.scope === null || typeof body.scope === 'string').toBe(true);
}

beforeAll(async () => {
  t = await startTestPlatform();
  idpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-auth-idp-'));
  const listed = await t.client.get<RoleRef[]>('/api/v1/roles', { apiKey: t.rootKey });
  expect(listed.status, listed.text).toBe(200);
  for (const r of listed.body) roles.set(r.slug, r);
  idp1 = await startOwnIdp([ALICE, BOB, CAROL, DAVE], ['acme-app', 'globex-app', 'dormant-app']);
  idp2 = await startOwnIdp([OTHER_ALICE], ['acme-app']);
});

afterAll(async () => {
  for (const idp of idps) await idp.close().catch(() => undefined);
  await t?.close();
  if (idpDir) fs.rmSync(idpDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------
describe('authentication', () => {
  it('login (deprecated) answers exactly the token set fields with a Deprecation header, and the token is a working bearer', async () => {
    const res = await login('admin', 'admin');
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('deprecation')).toBeTruthy();
    expectTokenSet(res.body);
    const who = await me({ bearer: res.body.access_token });
    expect(who.status, who.text).toBe(200);
    expect(who.body.username).toBe('admin');
    expect(who.body.role.slug).toBe('system-admin');
    expect(who.body.tenant.name).toBe('system');
  });

  it('login rejects a wrong password (401), a missing field (400), an unknown or disabled tenant (401) and an unreachable provider (503)', async () => {
    expectProblem(await login('admin', 'not-the-password'), 401, 'UNAUTHENTICATED');

    expectProblem(await t.client.post('/api/v1/auth/login', { username: 'admin' }), 400);
    expectProblem(await t.client.post('/api/v1/auth/login', { password: 'admin' }), 400);
    expectProblem(await login('', 'admin'), 400);

    expectProblem(await login('admin', 'admin', 'no-such-tenant'), 401, 'UNAUTHENTICATED');

    const dormant = await createTenant('dormant', await providerFor(idp1, 'dormant-app'));
    // works while enabled: proves the 401 below is caused by the disabled state
    await loginOk('dave', 'dave-pass', 'dormant');
    const off = await t.client.post(`/api/v1/admin/tenants/${dormant.id}/disable`, undefined, { apiKey: t.rootKey });
    expect(off.status, off.text).toBe(200);
    expectProblem(await login('dave', 'dave-pass', 'dormant'), 401, 'UNAUTHENTICATED');

    const port = await closedLoopbackPort();
    const dead = `http://127.0.0.1:${port}`;
    await createTenant('unreachable', {
      clientId: 'nobody', clientSecret: 'nothing', issuerUri: dead, tokenUri: `${dead}/token`, jwkSetUri: `${dead}/jwks`,
    });
    expectProblem(await login('someone', 'secret', 'unreachable'), 503, 'UNAVAILABLE');
    const exchange = await t.client.post('/api/v1/auth/exchange-auth-code',
      { code: 'any-code', redirectUri: REDIRECT_URI, codeVerifier: 'v'.repeat(43) }, { tenant: 'unreachable' });
    expectProblem(exchange, 503, 'UNAVAILABLE');
    expectProblem(await t.client.post('/api/v1/auth/refresh-token', { refreshToken: 'rt' }, { tenant: 'unreachable' }), 503, 'UNAVAILABLE');
  });

  it('exchange-auth-code completes the PKCE flow, refuses a replayed code and a redirect URI different from the authorization request', async () => {
    const devIdp = t.platform.devIdp;
    if (!devIdp) throw new Error('the platform runs without its dev IdP');
    const flow = await pkceLogin({ issuer: devIdp.issuer, clientId: 'voxgate', redirectUri: REDIRECT_URI, username: 'admin', password: 'admin' });
    const exchange = (body: Record<string, string>) => t.client.post<TokenSet>('/api/v1/auth/exchange-auth-code', body);

    const res = await exchange({ code: flow.code, redirectUri: flow.redirectUri, codeVerifier: flow.codeVerifier });
    expect(res.status, res.text).toBe(200);
    expectTokenSet(res.body);
    const who = await me({ bearer: res.body.access_token });
    expect(who.status, who.text).toBe(200);
    expect(who.body.username).toBe('admin');

    expectProblem(await exchange({ code: flow.code, redirectUri: flow.redirectUri, codeVerifier: flow.codeVerifier }), 401, 'UNAUTHENTICATED');

    const second = await pkceLogin({ issuer: devIdp.issuer, clientId: 'voxgate', redirectUri: REDIRECT_URI, username: 'admin', password: 'admin' });
    expectProblem(await exchange({ code: second.code, redirectUri: 'http://127.0.0.1:9/elsewhere', codeVerifier: second.codeVerifier }), 401, 'UNAUTHENTICATED');

    const third = await pkceLogin({ issuer: devIdp.issuer, clientId: 'voxgate', redirectUri: REDIRECT_URI, username: 'admin', password: 'admin' });
    expectProblem(await exchange({ code: third.code, redirectUri: third.redirectUri }), 400);
  });

  it('refresh-token rotates the refresh token; the superseded one and garbage are rejected with 400', async () => {
    const first = await loginOk('admin', 'admin');
    const res = await t.client.post<TokenSet>('/api/v1/auth/refresh-token', { refreshToken: first.refresh_token });
    expect(res.status, res.text).toBe(200);
    expectTokenSet(res.body);
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    const who = await me({ bearer: res.body.access_token });
    expect(who.status, who.text).toBe(200);

    expectProblem(await t.client.post('/api/v1/auth/refresh-token', { refreshToken: first.refresh_token }), 400, 'BAD_USER_INPUT');
    expectProblem(await t.client.post('/api/v1/auth/refresh-token', { refreshToken: 'garbage' }), 400, 'BAD_USER_INPUT');
    expectProblem(await t.client.post('/api/v1/auth/refresh-token', {}), 400);
  });

  it('logout invalidates the refresh token; a second logout with it is rejected with 400', async () => {
    const tokens = await loginOk('admin', 'admin');
    const out = await t.client.post('/api/v1/auth/logout', { refreshToken: tokens.refresh_token });
    expect(out.status, out.text).toBe(200);
    expectProblem(await t.client.post('/api/v1/auth/refresh-token', { refreshToken: tokens.refresh_token }), 400, 'BAD_USER_INPUT');
    expectProblem(await t.client.post('/api/v1/auth/logout', { refreshToken: tokens.refresh_token }), 400, 'BAD_USER_INPUT');
  });

  it('post-login sync gives the first user the first-login role, later users the default role, and answers 409 on a username held by another subject', async () => {
    const acme = await createTenant('acme', await providerFor(idp1, 'acme-app'));
    expect(acme.firstLoginRole.slug).toBe('tenant-admin');
    expect(acme.defaultRole.slug).toBe('member');

    const alice = await loginOk('alice', 'alice-pass', 'acme');
    const aliceMe = await me({ bearer: alice.access_token });
    expect(aliceMe.status, aliceMe.text).toBe(200);
    expect(aliceMe.body).toMatchObject({ username: 'alice', role: { slug: 'tenant-admin' }, tenant: { id: acme.id, name: 'acme' } });

    // PKCE exchange performs the same sync
    const flow = await pkceLogin({ issuer: idp1.issuer, clientId: 'acme-app', redirectUri: REDIRECT_URI, username: 'bob', password: 'bob-pass' });
    const bob = await t.client.post<TokenSet>('/api/v1/auth/exchange-auth-code',
      { code: flow.code, redirectUri: flow.redirectUri, codeVerifier: flow.codeVerifier }, { tenant: 'acme' });
    expect(bob.status, bob.text).toBe(200);
    const bobMe = await me({ bearer: bob.body.access_token });
    expect(bobMe.status, bobMe.text).toBe(200);
    expect(bobMe.body).toMatchObject({ username: 'bob', role: { slug: 'member' }, tenant: { name: 'acme' } });

    // alice logging in again keeps her role
    const again = await loginOk('alice', 'alice-pass', 'acme');
    expect((await me({ bearer: again.access_token })).body.role.slug).toBe('tenant-admin');

    const put = await t.client.put(`/api/v1/admin/tenants/${acme.id}/oidc-provider`, await providerFor(idp2, 'acme-app'), { apiKey: t.rootKey });
    expect(put.status, put.text).toBe(200);
    expectProblem(await login('alice', 'alice2-pass', 'acme'), 409, 'CONFLICT');
  });

  it("disabling a tenant rejects new logins and the tenant's bearer tokens and API keys; enabling restores them", async () => {
    const globex = await createTenant('globex', await providerFor(idp1, 'globex-app'));
    const carol = await loginOk('carol', 'carol-pass', 'globex');
    const created = await t.client.post<{ key: string }>('/api/v1/api-keys', { name: 'carol-key' }, { bearer: carol.access_token });
    expect(created.status, created.text).toBe(201);
    const key = created.body.key;
    expect((await me({ bearer: carol.access_token })).status).toBe(200);
    expect((await me({ apiKey: key })).status).toBe(200);

    const off = await t.client.post<Tenant>(`/api/v1/admin/tenants/${globex.id}/disable`, undefined, { apiKey: t.rootKey });
    expect(off.status, off.text).toBe(200);
    expect(off.body.enabled).toBe(false);
    expectProblem(await login('carol', 'carol-pass', 'globex'), 401, 'UNAUTHENTICATED');
    expectProblem(await me({ bearer: carol.access_token }), 401);
    expectProblem(await me({ apiKey: key }), 401);

    const on = await t.client.post<Tenant>(`/api/v1/admin/tenants/${globex.id}/enable`, undefined, { apiKey: t.rootKey });
    expect(on.status, on.text).toBe(200);
    expect(on.body.enabled).toBe(true);
    const bearerAgain = await me({ bearer: carol.access_token });
    expect(bearerAgain.status, bearerAgain.text).toBe(200);
    expect(bearerAgain.body.username).toBe('carol');
    const keyAgain = await me({ apiKey: key });
    expect(keyAgain.status, keyAgain.text).toBe(200);
    expect(keyAgain.body.username).toBe('carol');
    await loginOk('carol', 'carol-pass', 'globex');
  });

  it('GraphQL login and refreshToken mutations return token sets and errors carry extensions.code', async () => {
    const TOKEN = 'access_token refresh_token token_type expires_in id_token scope';
    const ok = await t.client.gql<{ login: TokenSet }>(
      `mutation ($input: LoginInput!) { login(input: $input) { ${TOKEN} } }`, { input: { username: 'admin', password: 'admin' } });
    expect(ok.errors).toEqual([]);
    const tokens = ok.data?.login;
    if (!tokens) throw new Error('no token set');
    expectTokenSet(tokens);
    expect((await me({ bearer: tokens.access_token })).status).toBe(200);

    const refreshed = await t.client.gql<{ refreshToken: TokenSet }>(
      `mutation ($input: RefreshTokenInput!) { refreshToken(input: $input) { ${TOKEN} } }`, { input: { refreshToken: tokens.refresh_token } });
    expect(refreshed.errors).toEqual([]);
    const next = refreshed.data?.refreshToken;
    if (!next) throw new Error('no refreshed token set');
    expectTokenSet(next);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);

    const bad = await t.client.gql(
      `mutation ($input: LoginInput!) { login(input: $input) { ${TOKEN} } }`, { input: { username: 'admin', password: 'wrong' } });
    expect(bad.data?.login ?? null).toBeNull();
    expect(bad.errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');

    const stale = await t.client.gql(
      `mutation ($input: RefreshTokenInput!) { refreshToken(input: $input) { ${TOKEN} } }`, { input: { refreshToken: tokens.refresh_token } });
    expect(stale.errors[0]?.extensions?.code).toBe('BAD_USER_INPUT');

    const elsewhere = await t.client.gql(
      `mutation ($input: LoginInput!) { login(input: $input) { ${TOKEN} } }`,
      { input: { username: 'admin', password: 'admin' } }, { tenant: 'no-such-tenant' });
    expect(elsewhere.errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
