import { createHash, randomBytes } from 'node:crypto';
import { generateKeyPair } from 'jose';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeIssuer, type FakeIssuer } from '../support/fake-issuer';
import type { ApiResponse } from '../support/http';
import { startTestPlatform, type TestPlatform } from '../support/platform';


interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[] | null;
  state: 'Active' | 'Expired' | 'Revoked';
  expiresAt: string | null;
  revokedAt: string | null;
  [field: string]: unknown;
}
interface CreatedKey extends ApiKeyView { key: string }
interface Role { id: string; slug: string; hierarchyOrder: number }
interface Me { id: string; username: string; tenantId: string; role: { slug: string } }
interface ProblemBody { status: number; code: string; detail: string }

const KEY_FORMAT = /^vxg_[0-9A-Za-z]{64}$/;
const CLIENT_ID = 'vx-fake-client';
const USERS = { owner: 'owner-password', viewer: 'viewer-password' };

let t: TestPlatform;
let idp: FakeIssuer;
let tenantName: string;
let tenantId: string;
let ownerToken: string;
let viewerToken: string;

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function createKey(apiKey: string, body: Record<string, unknown>): Promise<CreatedKey> {
  const res = await t.client.post<CreatedKey>('/api/v1/api-keys', body, { apiKey });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function listKeys(apiKey: string): Promise<ApiKeyView[]> {
  const res = await t.client.get<ApiKeyView[]>('/api/v1/api-keys', { apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

function expectProblem(res: ApiResponse<unknown>, status: number, code?: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type') ?? '').toContain('application/problem+json');
  const body = res.body as ProblemBody;
  expect(body.status).toBe(status);
  if (code) expect(body.code).toBe(code);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await startTestPlatform();
  idp = await startFakeIssuer({ clientId: CLIENT_ID, users: USERS });

  const roles = await t.client.get<Role[]>('/api/v1/roles', { apiKey: t.rootKey });
  expect(roles.status, roles.text).toBe(200);
  const roleId = (slug: string) => {
    const r = roles.body.find((x) => x.slug === slug);
    if (!r) throw new Error(`role ${slug} not offered: ${roles.text}`);
    return r.id;
  };
  tenantName = `fake-idp-${randomBytes(3).toString('hex')}`;
  const tenant = await t.client.post<{ id: string }>('/api/v1/admin/tenants', {
    name: tenantName, displayName: 'Fake IdP tenant',
    firstLoginRoleId: roleId('tenant-admin'), defaultRoleId: roleId('viewer'),
  }, { apiKey: t.rootKey });
  expect(tenant.status, tenant.text).toBe(201);
  tenantId = tenant.body.id;
  const provider = await t.client.put(`/api/v1/admin/tenants/${tenantId}/oidc-provider`, {
    providerKey: 'fake', clientId: CLIENT_ID, issuerUri: idp.url, tokenUri: idp.tokenUri, jwkSetUri: idp.jwksUri,
  }, { apiKey: t.rootKey });
  expect(provider.status, provider.text).toBe(200);

  // post-login sync provisions the users: the first becomes the owner (first-login role), the next a viewer (default role)
  const login = async (username: keyof typeof USERS) => {
    const res = await t.client.post<{ access_token: string }>('/api/v1/auth/login',
      { username, password: USERS[username] }, { tenant: tenantName });
    expect(res.status, res.text).toBe(200);
    return res.body.access_token;
  };
  ownerToken = await login('owner');
  viewerToken = await login('viewer');
});

afterAll(async () => {
  await t?.close();
  await idp?.close();
});

describe('API key credentials', () => {
  it('API key format: the plain key is shown once at creation and only its SHA-256 hash is stored', async () => {
    const created = await createKey(t.rootKey, { name: 'format check', description: 'shown once' });
    expect(created.key).toMatch(KEY_FORMAT);
    expect(created.state).toBe('Active');
    expect(created.key.startsWith(created.prefix)).toBe(true);

    const listed = (await listKeys(t.rootKey)).find((k) => k.id === created.id);
    expect(listed).toBeDefined();
    expect(listed?.state).toBe('Active');
    expect(listed).not.toHaveProperty('key');
    expect(Object.keys(listed ?? {}).filter((f) => /hash|secret/i.test(f))).toEqual([]);
    expect(JSON.stringify(listed)).not.toContain(created.key.slice(4));

    const sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql<{ key_hash: string }[]>`select * from tenancy.api_keys where id = ${created.id}`;
      expect(rows).toHaveLength(1);
      const row = rows[0] as Record<string, unknown>;
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_hash).toBe(createHash('sha256').update(created.key).digest('hex'));
      // the secret appears nowhere in the row, and nowhere in the whole table
      for (const v of Object.values(row)) expect(String(v)).not.toContain(created.key.slice(4));
      const anywhere = await sql`select count(*)::int as n from tenancy.api_keys t where strpos(t::text, ${created.key.slice(4)}) > 0`;
      expect(anywhere[0]?.n).toBe(0);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });

  it('rule 6/7: key creation validates scopes (subset of the creator, known), expiry in the future and a name', async () => {
    // a creator whose effective permissions are only api-keys:write cannot mint a broader key
    const narrow = await createKey(t.rootKey, { name: 'narrow creator', scopes: ['api-keys:write'] });
    const outside = await t.client.post('/api/v1/api-keys', { name: 'broader', scopes: ['admin:tenants:read'] }, { apiKey: narrow.key });
    expectProblem(outside, 400, 'BAD_USER_INPUT');
    const inside = await t.client.post('/api/v1/api-keys', { name: 'same', scopes: ['api-keys:write'] }, { apiKey: narrow.key });
    expect(inside.status, inside.text).toBe(201);

    expectProblem(await t.client.post('/api/v1/api-keys', { name: 'unknown', scopes: ['no-such:scope'] }, { apiKey: t.rootKey }), 400);
    expectProblem(await t.client.post('/api/v1/api-keys',
      { name: 'past', expiresAt: new Date(Date.now() - 60_000).toISOString() }, { apiKey: t.rootKey }), 400);
    expectProblem(await t.client.post('/api/v1/api-keys', { description: 'no name' }, { apiKey: t.rootKey }), 400);
    expectProblem(await t.client.post('/api/v1/api-keys', { name: '   ' }, { apiKey: t.rootKey }), 400);
  });

  it('rule 7: a scoped key has only its scopes (api-keys:read lists keys, but no tenant admin nor key creation)', async () => {
    const reader = await createKey(t.rootKey, { name: 'reader', scopes: ['api-keys:read'] });
    expect(reader.scopes).toEqual(['api-keys:read']);
    expect((await t.client.get('/api/v1/api-keys', { apiKey: reader.key })).status).toBe(200);
    expectProblem(await t.client.get('/api/v1/admin/tenants', { apiKey: reader.key }), 403, 'FORBIDDEN');
    expectProblem(await t.client.post('/api/v1/api-keys', { name: 'child' }, { apiKey: reader.key }), 403, 'FORBIDDEN');
  });

  it('rule 7: effective permissions are the intersection of key scopes and the current role (viewer role)', async () => {
    // the owner (tenant-admin) mints a key; the viewer cannot hold admin scopes whatever a key says
    const ownerKey = await t.client.post<CreatedKey>('/api/v1/api-keys',
      { name: 'owner admin key', scopes: ['admin:tenants:read', 'api-keys:read'] }, { bearer: ownerToken });
    expect(ownerKey.status, ownerKey.text).toBe(201);
    expect((await t.client.get('/api/v1/admin/tenants', { apiKey: ownerKey.body.key })).status).toBe(200);

    // a viewer lacks api-keys:write, so it cannot mint a key at all, and cannot administer tenants
    expect((await t.client.get('/api/v1/api-keys', { bearer: viewerToken })).status).toBe(200);
    expectProblem(await t.client.post('/api/v1/api-keys', { name: 'viewer key' }, { bearer: viewerToken }), 403, 'FORBIDDEN');
    expectProblem(await t.client.get('/api/v1/admin/tenants', { bearer: viewerToken }), 403, 'FORBIDDEN');
    const me = await t.client.get<Me>('/api/v1/users/me', { bearer: viewerToken });
    expect(me.status, me.text).toBe(200);
    expect(me.body.role.slug).toBe('viewer');
  });

  it('rule 8: an identity-only key identifies the caller but is refused every scoped endpoint', async () => {
    const idOnly = await createKey(t.rootKey, { name: 'identity only' });
    expect(idOnly.scopes).toBeNull();
    const me = await t.client.get<Me>('/api/v1/users/me', { apiKey: idOnly.key });
    expect(me.status, me.text).toBe(200);
    expect(me.body.username).toBe('bootstrap');
    expectProblem(await t.client.get('/api/v1/admin/tenants', { apiKey: idOnly.key }), 403, 'FORBIDDEN');
    expectProblem(await t.client.get('/api/v1/api-keys', { apiKey: idOnly.key }), 403, 'FORBIDDEN');
    expectProblem(await t.client.post('/api/v1/api-keys', { name: 'x' }, { apiKey: idOnly.key }), 403, 'FORBIDDEN');
    // an empty scope list is an identity-only key too
    const empty = await createKey(t.rootKey, { name: 'empty scopes', scopes: [] });
    expectProblem(await t.client.get('/api/v1/api-keys', { apiKey: empty.key }), 403, 'FORBIDDEN');
  });

  it('API key states: a revoked key stops authenticating at once and for good; revoking an unknown key is 404', async () => {
    const k = await createKey(t.rootKey, { name: 'to revoke', scopes: ['api-keys:read'] });
    expect((await t.client.get('/api/v1/users/me', { apiKey: k.key })).status).toBe(200); // now cached at the edge
    const del = await t.client.delete(`/api/v1/api-keys/${k.id}`, { apiKey: t.rootKey });
    expect(del.status, del.text).toBe(204);
    expectProblem(await t.client.get('/api/v1/users/me', { apiKey: k.key }), 401, 'UNAUTHENTICATED');
    expectProblem(await t.client.get('/api/v1/api-keys', { apiKey: k.key }), 401, 'UNAUTHENTICATED');
    const listed = (await listKeys(t.rootKey)).find((x) => x.id === k.id);
    expect(listed?.state).toBe('Revoked');
    expect(listed?.revokedAt).toBeTruthy();
    // revoking again keeps it revoked
    expect((await t.client.delete(`/api/v1/api-keys/${k.id}`, { apiKey: t.rootKey })).status).toBe(204);
    expectProblem(await t.client.get('/api/v1/users/me', { apiKey: k.key }), 401);

    expectProblem(await t.client.delete('/api/v1/api-keys/00000000-0000-4000-8000-000000000000', { apiKey: t.rootKey }), 404, 'NOT_FOUND');
    expectProblem(await t.client.delete('/api/v1/api-keys/not-a-uuid', { apiKey: t.rootKey }), 404, 'NOT_FOUND');
  });

  it('API key states: an expired key stops authenticating and is listed as Expired', async () => {
    const k = await createKey(t.rootKey, { name: 'short lived', expiresAt: new Date(Date.now() + 2_000).toISOString() });
    expect(k.state).toBe('Active');
    expect((await t.client.get('/api/v1/users/me', { apiKey: k.key })).status).toBe(200);
    await sleep(2_600);
    expectProblem(await t.client.get('/api/v1/users/me', { apiKey: k.key }), 401, 'UNAUTHENTICATED');
    const listed = (await listKeys(t.rootKey)).find((x) => x.id === k.id);
    expect(listed?.state).toBe('Expired');
  });

  it('authentication: missing, malformed and unknown API keys are 401 on a protected path', async () => {
    const missing = await t.client.get('/api/v1/api-keys');
    expectProblem(missing, 401, 'UNAUTHENTICATED');
    expectProblem(await t.client.get('/api/v1/users/me'), 401, 'UNAUTHENTICATED');
    for (const bad of ['nope', 'vxg_short', `vxg_${'a'.repeat(63)}!`, `xxx_${'a'.repeat(64)}`, `${t.rootKey}x`, ' ']) {
      expectProblem(await t.client.get('/api/v1/api-keys', { headers: { 'x-api-key': bad } }), 401, 'UNAUTHENTICATED');
    }
    const unknown = `vxg_${randomBytes(48).toString('base64').replace(/[^0-9A-Za-z]/g, '').padEnd(64, 'Z').slice(0, 64)}`;
    expect(unknown).toMatch(KEY_FORMAT);
    expectProblem(await t.client.get('/api/v1/api-keys', { apiKey: unknown }), 401, 'UNAUTHENTICATED');
  });

  it('rule 1: with both X-API-Key and Authorization the API key is used and the bearer ignored', async () => {
    const k = await createKey(t.rootKey, { name: 'both headers', scopes: ['api-keys:read'] });
    const withGarbage = await t.client.get<Me>('/api/v1/users/me', { apiKey: k.key, bearer: 'garbage.not.ajwt' });
    expect(withGarbage.status, withGarbage.text).toBe(200);
    expect(withGarbage.body.username).toBe('bootstrap');
    // the key's scopes apply, not the owner's token
    const withOwner = await t.client.get<Me>('/api/v1/users/me', { apiKey: k.key, bearer: ownerToken });
    expect(withOwner.status).toBe(200);
    expect(withOwner.body.username).toBe('bootstrap');
    expectProblem(await t.client.get('/api/v1/admin/tenants', { apiKey: k.key, bearer: ownerToken }), 403);

    expect((await t.client.get('/api/v1/users/me', { bearer: ownerToken })).status).toBe(200);
    expect((await t.client.delete(`/api/v1/api-keys/${k.id}`, { apiKey: t.rootKey })).status).toBe(204);
    expectProblem(await t.client.get('/api/v1/users/me', { apiKey: k.key, bearer: ownerToken }), 401, 'UNAUTHENTICATED');
  });
});

describe('Bearer JWT credentials (rule 2: signature against the tenant JWKS)', () => {
  it('rule 2: a properly signed token for a provisioned user of the tenant is accepted', async () => {
    const me = await t.client.get<Me>('/api/v1/users/me', { bearer: await idp.sign({ sub: idp.subjectOf('owner') }) });
    expect(me.status, me.text).toBe(200);
    expect(me.body.username).toBe('owner');
    expect(me.body.tenantId).toBe(tenantId);
    expect(me.body.role.slug).toBe('tenant-admin');
    // azp instead of aud is accepted too
    const azp = await idp.sign({ sub: idp.subjectOf('owner'), aud: 'account', azp: CLIENT_ID });
    expect((await t.client.get('/api/v1/users/me', { bearer: azp })).status).toBe(200);
    // the token the login returned works as well
    expect((await t.client.get('/api/v1/users/me', { bearer: ownerToken })).status).toBe(200);
  });

  it('rule 2: an ID token is not an access token, even for the right client (401)', async () => {
    const sub = idp.subjectOf('owner');
    const idToken = await idp.sign({ sub, scope: undefined, nonce: 'n-0S6_WzA2Mj', auth_time: Math.floor(Date.now() / 1000) });
    expectProblem(await t.client.get('/api/v1/users/me', { bearer: idToken }), 401, 'UNAUTHENTICATED');
    const keycloakId = await idp.sign({ sub, typ: 'ID' });
    expectProblem(await t.client.get('/api/v1/users/me', { bearer: keycloakId }), 401, 'UNAUTHENTICATED');
    // the dev provider's ID token from a real login is refused too, its access token accepted
    const login = await t.client.post<{ access_token: string; id_token: string }>('/api/v1/auth/login', { username: 'admin', password: 'admin' });
    expect(login.status).toBe(200);
    expectProblem(await t.client.get('/api/v1/users/me', { bearer: login.body.id_token }), 401);
    expect((await t.client.get('/api/v1/users/me', { bearer: login.body.access_token })).status).toBe(200);
  });

  it('rule 2: forged, expired, foreign and malformed bearer credentials are 401', async () => {
    const sub = idp.subjectOf('owner');
    const now = Math.floor(Date.now() / 1000);
    const good = { iss: idp.url, aud: CLIENT_ID, sub, iat: now, exp: now + 300 };
    const other = await generateKeyPair('RS256');
    const cases: Record<string, string> = {
      'alg none': `${b64url({ alg: 'none', typ: 'JWT', kid: idp.kid })}.${b64url(good)}.`,
      'alg none without kid': `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(good)}.`,
      'HS256 keyed with the RSA public key (algorithm confusion)':
        await idp.sign({ sub }, { alg: 'HS256', key: new TextEncoder().encode(idp.publicKeyPem) }),
      'HS256 keyed with the JWK modulus': await idp.sign({ sub }, { alg: 'HS256', key: new TextEncoder().encode(idp.publicJwk.n ?? '') }),
      'expired': await idp.sign({ sub, iat: now - 600 }, { expiresIn: -120 }),
      'wrong issuer': await idp.sign({ sub, iss: 'https://evil.example' }),
      'issuer of another tenant (system dev IdP)': await idp.sign({ sub, iss: t.platform.devIdp?.issuer ?? 'http://127.0.0.1:1' }),
      'wrong audience': await idp.sign({ sub, aud: 'someone-else' }),
      'another key with the right kid': await idp.sign({ sub }, { key: other.privateKey }),
      'another key without kid': await idp.sign({ sub }, { key: other.privateKey, kid: null }),
      'unknown kid': await idp.sign({ sub }, { kid: 'no-such-kid' }),
      'unprovisioned subject': await idp.sign({ sub: 'never-logged-in' }),
      'not a JWT': 'not-a-jwt',
    };
    // tampered: take a good token and swap the payload for another subject
    const valid = await idp.sign({ sub });
    const [h, , s] = valid.split('.');
    cases['tampered payload'] = `${h}.${b64url({ ...good, sub: idp.subjectOf('viewer') })}.${s}`;

    expect((await t.client.get('/api/v1/users/me', { bearer: valid })).status).toBe(200);
    const failures: string[] = [];
    for (const [name, token] of Object.entries(cases)) {
      const res = await t.client.get('/api/v1/users/me', { bearer: token });
      if (res.status !== 401 || !(res.headers.get('content-type') ?? '').includes('application/problem+json')) {
        failures.push(`${name}: ${res.status} ${res.text}`);
      }
    }
    expect(failures).toEqual([]);

    const malformed = ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', `Bearer ${valid} extra`, `Token ${valid}`, valid];
    for (const header of malformed) {
      expectProblem(await t.client.get('/api/v1/users/me', { headers: { authorization: header } }), 401, 'UNAUTHENTICATED');
    }
  });

  it('rule 2: a token without an expiry claim is refused', async () => {
    const sub = idp.subjectOf('owner');
    // sign() sets exp by default; an undefined claim is dropped from the payload
    const token = await idp.sign({ sub, exp: undefined });
    expectProblem(await t.client.get('/api/v1/users/me', { bearer: token }), 401, 'UNAUTHENTICATED');
  });

  it('the dev IdP admin of the system tenant logs in and its token authenticates', async () => {
    const login = await t.client.post<{ access_token: string }>('/api/v1/auth/login', { username: 'admin', password: 'admin' });
    expect(login.status, login.text).toBe(200);
    const me = await t.client.get<Me>('/api/v1/users/me', { bearer: login.body.access_token });
    expect(me.status, me.text).toBe(200);
    expect(me.body.username).toBe('admin');
  });
});

describe('the same checks over GraphQL', () => {
  it('rule 8 over GraphQL: identity-only key gets FORBIDDEN on apiKeys, no credential gets UNAUTHENTICATED', async () => {
    const idOnly = await createKey(t.rootKey, { name: 'gql identity only' });
    const me = await t.client.gql<{ me: { username: string } }>('{ me { username } }', {}, { apiKey: idOnly.key });
    expect(me.errors).toEqual([]);
    expect(me.data?.me.username).toBe('bootstrap');

    const forbidden = await t.client.gql('{ apiKeys { id } }', {}, { apiKey: idOnly.key });
    expect(forbidden.errors[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(forbidden.data?.apiKeys ?? null).toBeNull();

    const anonymous = await t.client.gql('{ apiKeys { id } }');
    expect(anonymous.errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(anonymous.data?.apiKeys ?? null).toBeNull();

    const scoped = await t.client.gql<{ apiKeys: { id: string }[] }>('{ apiKeys { id } }', {}, { apiKey: t.rootKey });
    expect(scoped.errors).toEqual([]);
    expect(scoped.data?.apiKeys.some((k) => k.id === idOnly.id)).toBe(true);

    const create = await t.client.gql('mutation { createApiKey(input: { name: "x" }) { id key } }', {}, { apiKey: idOnly.key });
    expect(create.errors[0]?.extensions?.code).toBe('FORBIDDEN');

    const badKey = await t.client.gql('{ me { id } }', {}, { apiKey: 'vxg_nope' });
    expect(badKey.status).toBe(401);
    expect(badKey.errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const badJwt = await t.client.gql('{ me { id } }', {}, { bearer: await idp.sign({ sub: idp.subjectOf('owner') }, { expiresIn: -120 }) });
    expect(badJwt.status).toBe(401);
    expect(badJwt.errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('rule 8 over GraphQL: an identity-only key cannot list API keys through me.apiKeys either', async () => {
    const idOnly = await createKey(t.rootKey, { name: 'gql nested identity only' });
    const nested = await t.client.gql<{ me: { apiKeys: { id: string }[] | null } | null }>(
      '{ me { username apiKeys { id name } } }', {}, { apiKey: idOnly.key });
    // listing API keys needs api-keys:read; an identity-only key carries no authorization
    expect(nested.errors[0]?.extensions?.code, JSON.stringify(nested)).toBe('FORBIDDEN');
    expect(nested.data?.me?.apiKeys ?? null).toBeNull();
  });

  it("rule 8 over GraphQL: an identity-only key cannot read its tenant's configuration through me.tenant", async () => {
    const idOnly = await createKey(t.rootKey, { name: 'gql tenant identity only' });
    const res = await t.client.gql<{ me: { tenant: { name: string; oidcProvider: unknown } } | null }>(
      '{ me { tenant { name oidcProvider { clientId tokenUri } } } }', {}, { apiKey: idOnly.key });
    expect(res.errors[0]?.extensions?.code, JSON.stringify(res)).toBe('FORBIDDEN');
    expect(JSON.stringify(res.data)).not.toContain('tokenUri');
  });
});

describe('credentials on public and mixed requests', () => {
  it('rule 1: a valid API key wins over any Authorization header, Bearer or not', async () => {
    const res = await t.client.get<Me>('/api/v1/users/me', { apiKey: t.rootKey, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(res.status, res.text).toBe(200);
  });

  it('the public auth endpoints ignore stale credentials sent along', async () => {
    const login = await t.client.post<{ refresh_token: string }>('/api/v1/auth/login', { username: 'admin', password: 'admin' });
    const expired = await idp.sign({ sub: idp.subjectOf('owner') }, { expiresIn: -600 });
    const refreshed = await t.client.post('/api/v1/auth/refresh-token', { refreshToken: login.body.refresh_token }, { bearer: expired, apiKey: 'vxg_garbage' });
    expect(refreshed.status, refreshed.text).toBe(200);
  });
});
