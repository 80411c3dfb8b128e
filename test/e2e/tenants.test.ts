import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenantWithIdp, rolesBySlug, type RoleRef, type TenantWithIdp } from '../support/tenants';

type Json = Record<string, unknown>;

const TENANT_FIELDS = [
  'id', 'name', 'displayName', 'description', 'enabled', 'firstLoginRole', 'defaultRole', 'createdAt', 'oidcProvider',
  'speechServiceFileInternalPublishEnabled', 'speechServiceFileDirectShareEnabled', 'speechServiceSessionMaxConcurrent',
  'speechServiceSessionRecordingEnabled',
].sort();
const OIDC_FIELDS = [
  'id', 'providerKey', 'clientId', 'clientSecretConfigured', 'issuerUri', 'authorizationUri', 'tokenUri', 'userInfoUri',
  'jwkSetUri', 'endSessionUri', 'introspectionUri', 'advertisedIssuer',
].sort();

let queries: string[] = [];
let t: TestPlatform;
let roles: Record<string, RoleRef>;
let systemId: string;
let seq = 0;
const uniqueName = () => `acme-${Date.now().toString(36)}-${seq++}`;

beforeAll(async () => {
  t = await startTestPlatform({}, { onQuery: (q) => queries.push(q) });
  roles = await rolesBySlug(t);
  const list = await t.client.get<{ tenants: Json[] }>('/api/v1/admin/tenants', { apiKey: t.rootKey });
  systemId = String(list.body.tenants.find((x) => x.name === 'system')?.id);
});
afterAll(async () => { await t?.close(); });

const root = () => ({ apiKey: t.rootKey });
const validTenant = (over: Json = {}) => ({
  name: uniqueName(), displayName: 'Acme Corp', firstLoginRoleId: roles['tenant-admin']?.id, defaultRoleId: roles.member?.id, ...over,
});
async function tenantCount(): Promise<number> {
  const res = await t.client.get<{ total: number }>('/api/v1/admin/tenants', root());
  return res.body.total;
}

describe('creating tenants', () => {
  it('answers 201 with the full TenantResponse and the spec defaults', async () => {
    const body = validTenant({ description: 'first customer' });
    const res = await t.client.post<Json>('/api/v1/admin/tenants', body, root());
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(TENANT_FIELDS);
    expect(res.body).toMatchObject({
      name: body.name, displayName: 'Acme Corp', description: 'first customer', enabled: true, oidcProvider: null,
      speechServiceFileInternalPublishEnabled: true, speechServiceFileDirectShareEnabled: true,
      speechServiceSessionMaxConcurrent: 50, speechServiceSessionRecordingEnabled: false,
      firstLoginRole: roles['tenant-admin'], defaultRole: roles.member,
    });
    expect(new Date(String(res.body.createdAt)).toISOString()).toBe(res.body.createdAt);
  });

  it('never returns the OIDC client secret, only whether one is configured', async () => {
    const res = await t.client.post<Json>('/api/v1/admin/tenants', validTenant({
      oidcProvider: { clientId: 'c1', clientSecret: 's3cr3t-value', issuerUri: 'https://idp.example/realms/a', tokenUri: 'https://idp.example/token', jwkSetUri: 'https://idp.example/jwks' },
    }), root());
    expect(res.status).toBe(201);
    expect(res.text).not.toContain('s3cr3t-value');
    const provider = res.body.oidcProvider as Json;
    expect(Object.keys(provider).sort()).toEqual(OIDC_FIELDS);
    expect(provider).toMatchObject({ providerKey: 'oidc', clientId: 'c1', clientSecretConfigured: true, authorizationUri: null, advertisedIssuer: null });
  });

  it('rejects a duplicate name with 409 and creates nothing', async () => {
    const body = validTenant();
    expect((await t.client.post('/api/v1/admin/tenants', body, root())).status).toBe(201);
    const before = await tenantCount();
    const dup = await t.client.post<Json>('/api/v1/admin/tenants', { ...body, displayName: 'Other' }, root());
    expect(dup.status).toBe(409);
    expect(dup.headers.get('content-type')).toContain('application/problem+json');
    expect(dup.body).toMatchObject({ status: 409, code: 'CONFLICT' });
    expect(await tenantCount()).toBe(before);
  });

  it.each([
    ['a name longer than 64 characters', { name: 'a'.repeat(65) }],
    ['a name that is not a slug', { name: 'Not A Slug' }],
    ['a displayName longer than 64 characters', { displayName: 'x'.repeat(65) }],
    ['an empty displayName', { displayName: '  ' }],
    ['a description longer than 256 characters', { description: 'd'.repeat(257) }],
    ['a missing firstLoginRoleId', { firstLoginRoleId: undefined }],
    ['an unknown role id', { defaultRoleId: '00000000-0000-4000-8000-000000000000' }],
    ['a default role outranking the first-login role', { firstLoginRoleId: 'member', defaultRoleId: 'tenant-admin' }],
    ['a session limit below 1', { speechServiceSessionMaxConcurrent: 0 }],
    ['a wrongly typed field', { speechServiceSessionRecordingEnabled: 'yes' }],
    ['an unknown field', { color: 'blue' }],
    ['an invalid OIDC URL', { oidcProvider: { clientId: 'c', issuerUri: 'not a url', tokenUri: 'https://x/t', jwkSetUri: 'https://x/j' } }],
  ])('rejects %s with 400 and creates nothing', async (_label, over) => {
    const mapped: Json = { ...over };
    for (const k of ['firstLoginRoleId', 'defaultRoleId'] as const) {
      const v = mapped[k];
      if (typeof v === 'string' && roles[v]) mapped[k] = roles[v]?.id;
    }
    const before = await tenantCount();
    const res = await t.client.post<Json>('/api/v1/admin/tenants', validTenant(mapped), root());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, code: 'BAD_USER_INPUT' });
    expect(typeof res.body.detail).toBe('string');
    expect(await tenantCount()).toBe(before);
  });

  it('refuses a first-login role that does not rank below the caller (403)', async () => {
    const system = await t.client.get<{ firstLoginRole: RoleRef }>(`/api/v1/admin/tenants/${systemId}`, root());
    const res = await t.client.post('/api/v1/admin/tenants', validTenant({ firstLoginRoleId: system.body.firstLoginRole.id }), root());
    expect(res.status).toBe(403);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await t.client.request('POST', '/api/v1/admin/tenants', { apiKey: t.rootKey, rawBody: '{"name":' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
});

describe('reading tenants', () => {
  it('lists with page and size and reports the total', async () => {
    for (let i = 0; i < 3; i++) await t.client.post('/api/v1/admin/tenants', validTenant(), root());
    const total = await tenantCount();
    const page = await t.client.get<{ tenants: Json[]; page: number; size: number; total: number }>('/api/v1/admin/tenants?page=1&size=2', root());
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ page: 1, size: 2, total });
    expect(page.body.tenants).toHaveLength(2);
    const first = await t.client.get<{ tenants: Json[] }>('/api/v1/admin/tenants?page=0&size=2', root());
    expect(first.body.tenants.map((x) => x.id)).not.toEqual(page.body.tenants.map((x) => x.id));
    const beyond = await t.client.get<{ tenants: Json[]; size: number }>(`/api/v1/admin/tenants?page=${total}&size=20`, root());
    expect(beyond.body).toMatchObject({ size: 0, tenants: [] });
  });

  it.each([['size=0'], ['size=101'], ['page=-1'], ['size=abc']])('rejects %s with 400', async (q) => {
    expect((await t.client.get(`/api/v1/admin/tenants?${q}`, root())).status).toBe(400);
  });

  it('accepts tenant ids in any letter case', async () => {
    expect((await t.client.get<Json>(`/api/v1/admin/tenants/${systemId.toUpperCase()}`, root())).body.id).toBe(systemId);
  });

  it('gets one tenant, and 404 for an unknown or malformed id', async () => {
    const got = await t.client.get<Json>(`/api/v1/admin/tenants/${systemId}`, root());
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(TENANT_FIELDS);
    expect(got.body.name).toBe('system');
    expect((await t.client.get('/api/v1/admin/tenants/00000000-0000-4000-8000-000000000000', root())).status).toBe(404);
    expect((await t.client.get('/api/v1/admin/tenants/not-a-uuid', root())).status).toBe(404);
  });

  it('answers 401 without credentials', async () => {
    const res = await t.client.get<Json>('/api/v1/admin/tenants');
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('updating tenants', () => {
  it('changes only the given fields and answers the tenant', async () => {
    const created = await t.client.post<Json>('/api/v1/admin/tenants', validTenant({ description: 'keep me' }), root());
    const id = String(created.body.id);
    const res = await t.client.put<Json>(`/api/v1/admin/tenants/${id}`, { displayName: 'Renamed', speechServiceSessionMaxConcurrent: 7 }, root());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ displayName: 'Renamed', speechServiceSessionMaxConcurrent: 7, description: 'keep me', name: created.body.name });
  });

  it('does not accept a name, and an invalid update changes nothing', async () => {
    const created = await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root());
    const id = String(created.body.id);
    expect((await t.client.put(`/api/v1/admin/tenants/${id}`, { name: 'other-name' }, root())).status).toBe(400);
    expect((await t.client.put(`/api/v1/admin/tenants/${id}`, { displayName: 'Nope', defaultRoleId: roles['tenant-admin']?.id, firstLoginRoleId: roles.member?.id }, root())).status).toBe(400);
    expect((await t.client.put(`/api/v1/admin/tenants/${id}`, { displayName: 'Nope', speechServiceSessionMaxConcurrent: -1 }, root())).status).toBe(400);
    const after = await t.client.get<Json>(`/api/v1/admin/tenants/${id}`, root());
    expect(after.body).toEqual(created.body);
  });

  it('keeps the default role at most the first-login role under concurrent updates', async () => {
    for (let round = 0; round < 5; round++) {
      const id = String((await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root())).body.id);
      await Promise.all([
        t.client.put(`/api/v1/admin/tenants/${id}`, { firstLoginRoleId: roles.member?.id }, root()),
        t.client.put(`/api/v1/admin/tenants/${id}`, { defaultRoleId: roles['tenant-admin']?.id }, root()),
      ]);
      const after = await t.client.get<{ firstLoginRole: RoleRef; defaultRole: RoleRef }>(`/api/v1/admin/tenants/${id}`, root());
      expect(after.body.defaultRole.hierarchyOrder).toBeLessThanOrEqual(after.body.firstLoginRole.hierarchyOrder);
    }
  });

  it('answers 404 for an unknown tenant', async () => {
    expect((await t.client.put('/api/v1/admin/tenants/00000000-0000-4000-8000-000000000000', { displayName: 'x' }, root())).status).toBe(404);
  });
});

describe('enabling and disabling tenants', () => {
  it('toggles the enabled flag', async () => {
    const created = await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root());
    const id = String(created.body.id);
    const off = await t.client.post<Json>(`/api/v1/admin/tenants/${id}/disable`, undefined, root());
    expect(off.status).toBe(200);
    expect(off.body.enabled).toBe(false);
    expect((await t.client.get<Json>(`/api/v1/admin/tenants/${id}`, root())).body.enabled).toBe(false);
    const on = await t.client.post<Json>(`/api/v1/admin/tenants/${id}/enable`, undefined, root());
    expect(on.body.enabled).toBe(true);
  });

  it('refuses to disable the system tenant (409) and answers 404 for unknown tenants', async () => {
    expect((await t.client.post(`/api/v1/admin/tenants/${systemId}/disable`, undefined, root())).status).toBe(409);
    expect((await t.client.post('/api/v1/admin/tenants/00000000-0000-4000-8000-000000000000/enable', undefined, root())).status).toBe(404);
  });
});

describe("a tenant's OIDC provider", () => {
  let clients = 0;
  // (issuer, client id) must be unique across tenants, so each tenant gets its own client
  const providerFor = () => ({ clientId: `web-${clients++}`, clientSecret: 'top-secret', issuerUri: 'https://idp.example/r', tokenUri: 'https://idp.example/r/token', jwkSetUri: 'https://idp.example/r/jwks', advertisedIssuer: 'https://login.example' });

  it('is 404 until configured, then stored, read back without the secret, and removed', async () => {
    const provider = providerFor();
    const id = String((await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root())).body.id);
    expect((await t.client.get(`/api/v1/admin/tenants/${id}/oidc-provider`, root())).status).toBe(404);
    const put = await t.client.put<Json>(`/api/v1/admin/tenants/${id}/oidc-provider`, provider, root());
    expect(put.status).toBe(200);
    const got = await t.client.get<Json>(`/api/v1/admin/tenants/${id}/oidc-provider`, root());
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(OIDC_FIELDS);
    expect(got.body).toMatchObject({ providerKey: 'oidc', clientId: provider.clientId, clientSecretConfigured: true, advertisedIssuer: 'https://login.example' });
    expect(got.text).not.toContain('top-secret');
    // the secret is never returned, so a replacement that omits it keeps it; null clears it
    const kept = await t.client.put<Json>(`/api/v1/admin/tenants/${id}/oidc-provider`, { ...provider, clientSecret: undefined, providerKey: 'corp' }, root());
    expect(kept.body).toMatchObject({ providerKey: 'corp', clientSecretConfigured: true, id: got.body.id });
    const replaced = await t.client.put<Json>(`/api/v1/admin/tenants/${id}/oidc-provider`, { ...provider, clientSecret: null, providerKey: 'corp' }, root());
    expect(replaced.body).toMatchObject({ providerKey: 'corp', clientSecretConfigured: false, id: got.body.id });
    expect((await t.client.get<Json>(`/api/v1/admin/tenants/${id}`, root())).body.oidcProvider).toMatchObject({ providerKey: 'corp' });
    expect((await t.client.delete(`/api/v1/admin/tenants/${id}/oidc-provider`, root())).status).toBe(204);
    expect((await t.client.get(`/api/v1/admin/tenants/${id}/oidc-provider`, root())).status).toBe(404);
    expect((await t.client.delete(`/api/v1/admin/tenants/${id}/oidc-provider`, root())).status).toBe(404);
  });

  it('rejects an invalid configuration with 400 and keeps the old one', async () => {
    const provider = providerFor();
    const id = String((await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root())).body.id);
    await t.client.put(`/api/v1/admin/tenants/${id}/oidc-provider`, provider, root());
    expect((await t.client.put(`/api/v1/admin/tenants/${id}/oidc-provider`, { ...provider, tokenUri: 'ftp://x' }, root())).status).toBe(400);
    expect((await t.client.put(`/api/v1/admin/tenants/${id}/oidc-provider`, { issuerUri: 'https://a' }, root())).status).toBe(400);
    expect((await t.client.get<Json>(`/api/v1/admin/tenants/${id}/oidc-provider`, root())).body.tokenUri).toBe(provider.tokenUri);
  });

  it('refuses an issuer and client id already used by another tenant (409)', async () => {
    const provider = providerFor();
    const a = String((await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root())).body.id);
    const b = String((await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root())).body.id);
    expect((await t.client.put(`/api/v1/admin/tenants/${a}/oidc-provider`, provider, root())).status).toBe(200);
    expect((await t.client.put(`/api/v1/admin/tenants/${b}/oidc-provider`, provider, root())).status).toBe(409);
    expect((await t.client.get(`/api/v1/admin/tenants/${b}/oidc-provider`, root())).status).toBe(404);
    const created = await t.client.post('/api/v1/admin/tenants', validTenant({ oidcProvider: provider }), root());
    expect(created.status).toBe(409);
  });

  it('tests connectivity with a client_credentials grant', async () => {
    const provider = providerFor();
    const ok = await t.client.post<Json>(`/api/v1/admin/tenants/${systemId}/oidc-provider/test`, undefined, root());
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ success: true, error: null });
    const id = String((await t.client.post<Json>('/api/v1/admin/tenants', validTenant(), root())).body.id);
    await t.client.put(`/api/v1/admin/tenants/${id}/oidc-provider`, { ...provider, tokenUri: 'http://127.0.0.1:9/token' }, root());
    const down = await t.client.post<Json>(`/api/v1/admin/tenants/${id}/oidc-provider/test`, undefined, root());
    expect(down.status).toBe(200);
    expect(down.body.success).toBe(false);
    expect(typeof down.body.message).toBe('string');
    expect(typeof down.body.error).toBe('string');
    expect((await t.client.post(`/api/v1/admin/tenants/${id}/oidc-provider/test`, undefined)).status).toBe(401);
  });
});

describe('tenant isolation', () => {
  let acme: TenantWithIdp;
  let ownerBearer: string;
  beforeAll(async () => {
    acme = await createTenantWithIdp(t, [{ username: 'owner', password: 'pw-owner' }]);
    ownerBearer = (await acme.login('owner', 'pw-owner')).access_token;
  });
  afterAll(async () => { await acme?.close(); });

  it("shows a tenant administrator only their own tenant", async () => {
    const list = await t.client.get<{ tenants: Json[]; total: number }>('/api/v1/admin/tenants', { bearer: ownerBearer });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.tenants.map((x) => x.id)).toEqual([acme.id]);
    expect((await t.client.get(`/api/v1/admin/tenants/${acme.id}`, { bearer: ownerBearer })).status).toBe(200);
  });

  it("answers 404 for another tenant's data and changes nothing there", async () => {
    expect((await t.client.get(`/api/v1/admin/tenants/${systemId}`, { bearer: ownerBearer })).status).toBe(404);
    expect((await t.client.get(`/api/v1/admin/tenants/${systemId}/oidc-provider`, { bearer: ownerBearer })).status).toBe(404);
    expect((await t.client.put(`/api/v1/admin/tenants/${systemId}`, { displayName: 'Hijacked' }, { bearer: ownerBearer })).status).toBe(404);
    expect((await t.client.delete(`/api/v1/admin/tenants/${systemId}/oidc-provider`, { bearer: ownerBearer })).status).toBe(404);
    const gql = await t.client.gql(`query ($id: ID!) { tenant(id: $id) { name } }`, { id: systemId }, { bearer: ownerBearer });
    expect(gql.errors[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await t.client.get<Json>(`/api/v1/admin/tenants/${systemId}`, root())).body.displayName).toBe('System');
  });

  it("keeps a tenant administrator's OIDC endpoints public: no loopback, private or plain-http URLs (400)", async () => {
    const own = { clientId: 'acme-web', issuerUri: 'https://login.acme.example', tokenUri: 'https://login.acme.example/token', jwkSetUri: 'https://login.acme.example/jwks' };
    for (const bad of [{ tokenUri: 'http://127.0.0.1:9/token' }, { jwkSetUri: 'https://10.1.2.3/jwks' }, { issuerUri: 'https://localhost/' }, { introspectionUri: 'http://login.acme.example/i' }]) {
      const res = await t.client.put<Json>(`/api/v1/admin/tenants/${acme.id}/oidc-provider`, { ...own, ...bad }, { bearer: ownerBearer });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await t.client.get<Json>(`/api/v1/admin/tenants/${acme.id}/oidc-provider`, root())).body.issuerUri).toBe(acme.idp.issuer);
  });

  it("hides other tenants' users and API keys", async () => {
    const rootKeys = await t.client.get<{ id: string }[]>('/api/v1/api-keys', root());
    const rootKeyId = rootKeys.body[0]?.id ?? '';
    const ownerKey = await acme.apiKeyOf(ownerBearer, ['api-keys:write', 'api-keys:read', 'admin:users:read', 'admin:tenants:read']);
    expect((await t.client.delete(`/api/v1/api-keys/${rootKeyId}`, { apiKey: ownerKey })).status).toBe(404);
    expect((await t.client.get('/api/v1/users/me', root())).status).toBe(200);
    const users = await t.client.gql(`query ($id: ID!) { tenant(id: $id) { users { id } } }`, { id: systemId }, { apiKey: ownerKey });
    expect(users.errors[0]?.extensions?.code).toBe('NOT_FOUND');
    const own = await t.client.gql<{ tenant: { users: { username: string }[] } }>(`query ($id: ID!) { tenant(id: $id) { users { username } } }`, { id: acme.id }, { apiKey: ownerKey });
    expect(own.data?.tenant.users.map((u) => u.username)).toEqual(['owner']);
  });

  it('keeps tenant creation, enabling and disabling to system administrators', async () => {
    expect((await t.client.post('/api/v1/admin/tenants', validTenant(), { bearer: ownerBearer })).status).toBe(403);
    expect((await t.client.post(`/api/v1/admin/tenants/${acme.id}/disable`, undefined, { bearer: ownerBearer })).status).toBe(403);
  });

  it('lets a tenant administrator update their own tenant but not raise its first-login role to their own rank', async () => {
    expect((await t.client.put(`/api/v1/admin/tenants/${acme.id}`, { displayName: 'Acme Ltd' }, { bearer: ownerBearer })).status).toBe(200);
    const raise = await t.client.put(`/api/v1/admin/tenants/${acme.id}`, { firstLoginRoleId: roles['tenant-admin']?.id, defaultRoleId: roles.viewer?.id }, { bearer: ownerBearer });
    expect(raise.status).toBe(200); // unchanged first-login role: no rank check
    const lower = await t.client.put<Json>(`/api/v1/admin/tenants/${acme.id}`, { firstLoginRoleId: roles.member?.id }, { bearer: ownerBearer });
    expect(lower.status).toBe(200);
    const back = await t.client.put(`/api/v1/admin/tenants/${acme.id}`, { firstLoginRoleId: roles['tenant-admin']?.id }, { bearer: ownerBearer });
    expect(back.status).toBe(403);
  });
});

describe('GraphQL for admin consoles', () => {
  const nested = `query ($size: Int!) { tenants(page: 0, size: $size) { total tenants { id name firstLoginRole { slug } defaultRole { slug }
    oidcProvider { clientId clientSecretConfigured } users { username apiKeys { name state } } } } }`;

  it('offers the tenant operations as mutations with the same validation', async () => {
    const name = uniqueName();
    const created = await t.client.gql<{ createTenant: Json }>(`mutation ($input: TenantCreateInput!) { createTenant(input: $input) { id name enabled } }`,
      { input: validTenant({ name }) }, root());
    expect(created.errors).toEqual([]);
    expect(created.data?.createTenant).toMatchObject({ name, enabled: true });
    const dup = await t.client.gql(`mutation ($input: TenantCreateInput!) { createTenant(input: $input) { id } }`, { input: validTenant({ name }) }, root());
    expect(dup.errors[0]?.extensions?.code).toBe('CONFLICT');
    const bad = await t.client.gql(`mutation ($input: TenantCreateInput!) { createTenant(input: $input) { id } }`, { input: validTenant({ displayName: 'x'.repeat(65) }) }, root());
    expect(bad.errors[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('resolves nested roles, provider, users and their API keys', async () => {
    const acme = await createTenantWithIdp(t, [{ username: 'nina', password: 'pw' }]);
    try {
      const bearer = (await acme.login('nina', 'pw')).access_token;
      await acme.apiKeyOf(bearer, ['api-keys:read']);
      const res = await t.client.gql<{ tenant: Json }>(`query ($id: ID!) { tenant(id: $id) { firstLoginRole { slug hierarchyOrder } defaultRole { slug }
        oidcProvider { clientId } users { username apiKeys { name state scopes } } } }`, { id: acme.id }, root());
      expect(res.errors).toEqual([]);
      expect(res.data?.tenant).toEqual({
        firstLoginRole: { slug: 'tenant-admin', hierarchyOrder: 100 }, defaultRole: { slug: 'member' },
        oidcProvider: { clientId: acme.name },
        users: [{ username: 'nina', apiKeys: [{ name: 'test', state: 'Active', scopes: ['api-keys:read'] }] }],
      });
    } finally {
      await acme.close();
    }
  });

  it('keeps the number of SQL queries flat as the tenant list grows (DataLoader)', async () => {
    for (let i = 0; i < 12; i++) await t.client.post('/api/v1/admin/tenants', validTenant(), root());
    const count = async (size: number) => {
      await t.client.gql(nested, { size }, root()); // warm caches outside the measurement
      queries = [];
      const res = await t.client.gql<{ tenants: { tenants: Json[] } }>(nested, { size }, root());
      expect(res.errors).toEqual([]);
      expect(res.data?.tenants.tenants).toHaveLength(size);
      return queries.length;
    };
    const small = await count(2);
    const large = await count(12);
    expect(large).toBe(small);
    expect(small).toBeLessThanOrEqual(8);
  });
});
