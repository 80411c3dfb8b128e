import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdgeClient } from '../support/http';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { freePort, spawnPlatform, waitReady, type PlatformProcess } from '../support/processes';
import { createTenantWithIdp, type TenantWithIdp } from '../support/tenants';

type Json = Record<string, unknown>;

const SPEC_SPEAKER_DEFAULTS = {
  speakerEnrollmentCreations: 10, speakerVerificationExecutions: 60, speakerVoicePrintPreviews: 10,
  speakerVoicePrintCreations: 10, speakerVoicePrintRebuildStarts: 1, speakerRecordingDownloads: 30,
};
const SUBSCRIPTION_FIELDS = ['id', 'userUuid', 'plan', 'status', 'currentPeriodStart', 'currentPeriodEnd', 'canceledAt', 'createdAt', 'updatedAt'].sort();
const PLAN_FIELDS = ['id', 'slug', 'name', 'active', 'displayOrder', 'quotas', 'rateLimits', 'permissions', 'createdAt', 'updatedAt'].sort();

let t: TestPlatform;
let acme: TenantWithIdp;
let ownerKey: string; // tenant-admin of acme, every scope
let memberBearer: string; // a member of acme
let memberId: string;

beforeAll(async () => {
  t = await startTestPlatform();
  acme = await createTenantWithIdp(t, [{ username: 'owner', password: 'pw-owner' }, { username: 'mia', password: 'pw-mia' }]);
  const ownerBearer = (await acme.login('owner', 'pw-owner')).access_token;
  const scopes = (await t.client.gql<{ roles: { slug: string; scopes: string[] }[] }>('{ roles { slug scopes } }', {}, { apiKey: t.rootKey }))
    .data?.roles.find((r) => r.slug === 'tenant-admin')?.scopes ?? [];
  ownerKey = await acme.apiKeyOf(ownerBearer, scopes);
  memberBearer = (await acme.login('mia', 'pw-mia')).access_token;
  memberId = (await t.client.get<{ id: string }>('/api/v1/users/me', { bearer: memberBearer })).body.id;
});
afterAll(async () => {
  await acme?.close();
  await t?.close();
});

const owner = () => ({ apiKey: ownerKey });
const patchDefaults = (body: unknown, caller = owner()) => t.client.request<Json>('PATCH', '/api/v1/admin/rate-limits/defaults', { ...caller, body });
const createPlan = (body: Json) => t.client.post<Json>('/api/v1/admin/subscription-plans', body, owner());

describe('rate limits', () => {
  it('GET /rate-limits answers the effective limits with the spec keys and the spec speaker defaults', async () => {
    const res = await t.client.get<Json>('/api/v1/rate-limits', { bearer: memberBearer });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['globalRequests', 'speaker-service', 'speech-service', 'text-service', 'users']);
    expect(res.body['speaker-service']).toEqual(SPEC_SPEAKER_DEFAULTS);
    expect((await t.client.get('/api/v1/rate-limits')).status).toBe(401);
  });

  it('PATCH of the tenant defaults changes only the provided fields; unset fields are null (inherit)', async () => {
    const res = await patchDefaults({ 'speech-service': { fileUploads: 42 }, 'speaker-service': { speakerRecordingDownloads: 5 } });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['globalRequests', 'speaker-service', 'speech-service', 'text-service', 'users']);
    expect(res.body['speech-service']).toMatchObject({ fileUploads: 42, transcriptionJobExecutions: null });
    expect(res.body['speaker-service']).toMatchObject({ speakerRecordingDownloads: 5, speakerVerificationExecutions: null });
    const again = await t.client.get<Json>('/api/v1/admin/rate-limits/defaults', owner());
    expect(again.body).toEqual(res.body);
    const untouched = await patchDefaults({ 'text-service': { textTranslationExecutions: 7 } });
    expect(untouched.body['speech-service']).toMatchObject({ fileUploads: 42 });
    // the effective value shows the inheritance
    expect(((await t.client.get<Json>('/api/v1/rate-limits', { bearer: memberBearer })).body['speaker-service'] as Json).speakerVerificationExecutions).toBe(60);
    const reset = await patchDefaults({ 'speech-service': { fileUploads: null } });
    expect(reset.body['speech-service']).toMatchObject({ fileUploads: null });
  });

  it('refuses GraphQL-style group keys in REST bodies (400)', async () => {
    const res = await patchDefaults({ speechService: { fileUploads: 5 } });
    expect(res.status).toBe(400);
    expect(String(res.body.detail)).toContain('speech-service');
  });

  it.each([
    ['a speaker-service limit below 1', { 'speaker-service': { speakerVerificationExecutions: 0 } }],
    ['speechServiceStreamMaxBytesPerSecond below 32,000', { 'speech-service': { speechServiceStreamMaxBytesPerSecond: 31_999 } }],
    ['speechServiceFileDownloadBytesPerSecond below 1', { 'speech-service': { speechServiceFileDownloadBytesPerSecond: 0 } }],
    ['a negative count', { 'speech-service': { fileUploads: -1 } }],
    ['a fractional value', { users: { userLookup: 1.5 } }],
    ['a wrongly typed value', { globalRequests: 'many' }],
    ['an unknown field', { 'speech-service': { warpSpeed: 9 } }],
    ['an unknown group', { 'video-service': { fileUploads: 9 } }],
  ])('rejects %s with 400 and changes nothing', async (_label, body) => {
    const before = await t.client.get<Json>('/api/v1/admin/rate-limits/defaults', owner());
    const res = await patchDefaults({ ...body, 'text-service': { textTranslationExecutions: 99 } });
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect((await t.client.get<Json>('/api/v1/admin/rate-limits/defaults', owner())).body).toEqual(before.body);
  });

  it('keeps the admin defaults to holders of admin:ratelimits:read and :write (403)', async () => {
    expect((await t.client.get('/api/v1/admin/rate-limits/defaults', { bearer: memberBearer })).status).toBe(403);
    expect((await patchDefaults({ globalRequests: 5 }, { bearer: memberBearer } as never)).status).toBe(403);
    const readOnly = await acme.apiKeyOf((await acme.login('owner', 'pw-owner')).access_token, ['admin:ratelimits:read']);
    expect((await t.client.get('/api/v1/admin/rate-limits/defaults', { apiKey: readOnly })).status).toBe(200);
    expect((await patchDefaults({ globalRequests: 5 }, { apiKey: readOnly } as never)).status).toBe(403);
    expect((await t.client.get('/api/v1/admin/rate-limits/defaults')).status).toBe(401);
  });

  it('resolves user override, then plan, then tenant default, then platform default', async () => {
    const limit = async () => (await t.client.get<Json>('/api/v1/rate-limits', { bearer: memberBearer })).body['speaker-service'] as Record<string, number>;
    expect((await limit()).speakerVoicePrintPreviews).toBe(10); // platform
    await patchDefaults({ 'speaker-service': { speakerVoicePrintPreviews: 20 } });
    expect((await limit()).speakerVoicePrintPreviews).toBe(20); // tenant
    expect((await createPlan({ slug: 'precedence', name: 'Precedence', rateLimits: { 'speaker-service': { speakerVoicePrintPreviews: 30 } } })).status).toBe(201);
    expect((await t.client.put(`/api/v1/admin/users/${memberId}/subscription`, { planSlug: 'precedence' }, owner())).status).toBe(200);
    expect((await limit()).speakerVoicePrintPreviews).toBe(30); // plan
    const o = await t.client.request<Json>('PATCH', `/api/v1/admin/users/${memberId}/limit-overrides`, { ...owner(), body: { rateLimits: { 'speaker-service': { speakerVoicePrintPreviews: 40 } } } });
    expect(o.status, o.text).toBe(200);
    expect((await limit()).speakerVoicePrintPreviews).toBe(40); // user
    await t.client.request('PATCH', `/api/v1/admin/users/${memberId}/limit-overrides`, { ...owner(), body: { rateLimits: { 'speaker-service': { speakerVoicePrintPreviews: null } } } });
    expect((await limit()).speakerVoicePrintPreviews).toBe(30);
    // a plan that sets nothing lets the tenant default through
    expect((await createPlan({ slug: 'plain', name: 'Plain' })).status).toBe(201);
    expect((await t.client.put(`/api/v1/admin/users/${memberId}/subscription`, { planSlug: 'plain' }, owner())).status).toBe(200);
    expect((await limit()).speakerVoicePrintPreviews).toBe(20);
    await patchDefaults({ 'speaker-service': { speakerVoicePrintPreviews: null } });
    expect((await limit()).speakerVoicePrintPreviews).toBe(10);
  });
});

describe('quota defaults', () => {
  it('GET and PATCH the tenant quota defaults with the spec keys; invalid values change nothing', async () => {
    const before = await t.client.get<Json>('/api/v1/admin/quotas/defaults', owner());
    expect(before.status).toBe(200);
    expect(Object.keys(before.body).sort()).toEqual(['speaker-service', 'speech-service', 'text-service']);
    const res = await t.client.request<Json>('PATCH', '/api/v1/admin/quotas/defaults', { ...owner(), body: { 'speech-service': { monthlyTranscriptionMinutes: 120 } } });
    expect(res.status, res.text).toBe(200);
    expect(res.body['speech-service']).toMatchObject({ monthlyTranscriptionMinutes: 120, storageLimit: (before.body['speech-service'] as Json).storageLimit });
    const bad = await t.client.request('PATCH', '/api/v1/admin/quotas/defaults', { ...owner(), body: { 'speech-service': { monthlyTranscriptionMinutes: -5 }, 'text-service': { monthlyTextTranslations: 1 } } });
    expect(bad.status).toBe(400);
    expect((await t.client.get<Json>('/api/v1/admin/quotas/defaults', owner())).body).toEqual(res.body);
    const usage = await t.client.get<{ quotas: { quota: string; limit: number }[] }>('/api/v1/usage', { bearer: memberBearer });
    expect(usage.body.quotas.find((q) => q.quota === 'monthlyTranscriptionMinutes')?.limit).toBe(120);
    expect((await t.client.get('/api/v1/admin/quotas/defaults', { bearer: memberBearer })).status).toBe(403);
  });
});

describe('subscription plans', () => {
  it('lists active plans of the tenant by display order, with the SubscriptionPlanResponse fields', async () => {
    await createPlan({ slug: 'gold', name: 'Gold', displayOrder: 2, permissions: ['speech:transcriptions:read'], quotas: { 'speech-service': { monthlyTranscriptionMinutes: 900 } } });
    await createPlan({ slug: 'bronze', name: 'Bronze', displayOrder: 1 });
    await createPlan({ slug: 'retired', name: 'Retired', displayOrder: 0, active: false });
    const res = await t.client.get<Json[]>('/api/v1/subscription-plans', { bearer: memberBearer });
    expect(res.status).toBe(200);
    const slugs = res.body.map((p) => p.slug);
    expect(slugs).not.toContain('retired');
    expect(slugs.indexOf('bronze')).toBeLessThan(slugs.indexOf('gold'));
    const gold = res.body.find((p) => p.slug === 'gold') ?? {};
    expect(Object.keys(gold).sort()).toEqual(PLAN_FIELDS);
    expect(gold).toMatchObject({ active: true, displayOrder: 2, permissions: ['speech:transcriptions:read'], rateLimits: null });
    expect((gold.quotas as Json)['speech-service']).toMatchObject({ monthlyTranscriptionMinutes: 900, storageLimit: null });
  });

  it('gets one active plan by slug; 404 when missing or inactive', async () => {
    expect((await t.client.get<Json>('/api/v1/subscription-plans/gold', { bearer: memberBearer })).body.slug).toBe('gold');
    expect((await t.client.get('/api/v1/subscription-plans/retired', { bearer: memberBearer })).status).toBe(404);
    expect((await t.client.get('/api/v1/subscription-plans/nope', { bearer: memberBearer })).status).toBe(404);
  });

  it('administers plans: 409 on a taken slug, 400 on bad input, deactivation hides a plan from users', async () => {
    expect((await createPlan({ slug: 'gold', name: 'Again' })).status).toBe(409);
    expect((await createPlan({ slug: 'Bad Slug', name: 'x' })).status).toBe(400);
    expect((await createPlan({ slug: 'perm', name: 'x', permissions: ['root:everything'] })).status).toBe(400);
    expect((await createPlan({ slug: 'lim', name: 'x', rateLimits: { 'speaker-service': { speakerEnrollmentCreations: 0 } } })).status).toBe(400);
    const silver = await createPlan({ slug: 'silver', name: 'Silver' });
    const id = String(silver.body.id);
    const renamed = await t.client.request<Json>('PATCH', `/api/v1/admin/subscription-plans/${id}`, { ...owner(), body: { name: 'Silver+' } });
    expect(renamed.body).toMatchObject({ name: 'Silver+', slug: 'silver' });
    expect((await t.client.post<Json>(`/api/v1/admin/subscription-plans/${id}/deactivate`, undefined, owner())).body.active).toBe(false);
    expect((await t.client.get('/api/v1/subscription-plans/silver', { bearer: memberBearer })).status).toBe(404);
    const all = await t.client.get<Json[]>('/api/v1/admin/subscription-plans', owner());
    expect(all.body.map((p) => p.slug)).toContain('silver');
    expect((await t.client.post('/api/v1/admin/subscription-plans', { slug: 'm', name: 'm' }, { bearer: memberBearer })).status).toBe(403);
  });

  it("keeps each tenant's plans to itself", async () => {
    const sys = await t.client.get<Json[]>('/api/v1/subscription-plans', { apiKey: t.rootKey });
    expect(sys.body.map((p) => p.slug)).not.toContain('gold');
    expect((await t.client.get('/api/v1/subscription-plans/gold', { apiKey: t.rootKey })).status).toBe(404);
    expect((await t.client.post<Json>('/api/v1/admin/subscription-plans', { slug: 'gold', name: 'System gold' }, { apiKey: t.rootKey })).status).toBe(201);
  });
});

describe('subscriptions', () => {
  it('answers 204 without a subscription, then the UserSubscriptionResponse once assigned', async () => {
    const ownerId = (await t.client.get<{ id: string }>('/api/v1/users/me', owner())).body.id;
    const none = await t.client.get('/api/v1/subscription', owner());
    expect(none.status).toBe(204);
    expect(none.text).toBe('');
    expect((await t.client.put(`/api/v1/admin/users/${ownerId}/subscription`, { planSlug: 'gold' }, owner())).status).toBe(200);
    const res = await t.client.get<Json>('/api/v1/subscription', owner());
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(SUBSCRIPTION_FIELDS);
    expect(res.body).toMatchObject({ userUuid: ownerId, status: 'ACTIVE', canceledAt: null, plan: { slug: 'gold', name: 'Gold' } });
    const start = new Date(String(res.body.currentPeriodStart));
    const end = new Date(String(res.body.currentPeriodEnd));
    expect(end.getTime() - start.getTime()).toBeGreaterThanOrEqual(28 * 86_400_000);
  });

  it('replaces the active subscription on reassignment and refuses inactive or unknown plans', async () => {
    expect((await t.client.put<Json>(`/api/v1/admin/users/${memberId}/subscription`, { planSlug: 'bronze' }, owner())).body.plan).toMatchObject({ slug: 'bronze' });
    expect((await t.client.get<Json>('/api/v1/subscription', { bearer: memberBearer })).body.plan).toMatchObject({ slug: 'bronze' });
    expect((await t.client.put(`/api/v1/admin/users/${memberId}/subscription`, { planSlug: 'retired' }, owner())).status).toBe(400);
    expect((await t.client.put(`/api/v1/admin/users/${memberId}/subscription`, { planSlug: 'ghost' }, owner())).status).toBe(404);
  });

  it('cancels: the subscription stays in force as CANCELED until its period ends; canceling again is 404', async () => {
    const res = await t.client.post<Json>(`/api/v1/admin/users/${memberId}/subscription/cancel`, undefined, owner());
    expect(res.body).toMatchObject({ status: 'CANCELED' });
    expect(typeof res.body.canceledAt).toBe('string');
    const mine = await t.client.get<Json>('/api/v1/subscription', { bearer: memberBearer });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ status: 'CANCELED', plan: { slug: 'bronze' } });
    expect(new Date(String(mine.body.currentPeriodEnd)).getTime()).toBeGreaterThan(Date.now());
    expect((await t.client.post(`/api/v1/admin/users/${memberId}/subscription/cancel`, undefined, owner())).status).toBe(404);
  });

  it("acts only on users of the caller's tenant (404 otherwise) and ranked below the caller (403)", async () => {
    const rootId = (await t.client.get<{ id: string }>('/api/v1/users/me', { apiKey: t.rootKey })).body.id;
    expect((await t.client.put(`/api/v1/admin/users/${rootId}/subscription`, { planSlug: 'gold' }, owner())).status).toBe(404);
    expect((await t.client.get(`/api/v1/admin/users/${rootId}/limit-overrides`, owner())).status).toBe(404);
    expect((await t.client.get('/api/v1/admin/users/00000000-0000-4000-8000-000000000000/subscription', owner())).status).toBe(404);
    // a member cannot be given power over its admin, and the system administrator reaches every tenant
    const ownerId = (await t.client.get<{ id: string }>('/api/v1/users/me', owner())).body.id;
    expect((await t.client.request('PATCH', `/api/v1/admin/users/${ownerId}/limit-overrides`, { apiKey: t.rootKey, body: { rateLimits: { globalRequests: 5000 } } })).status).toBe(200);
    expect(((await t.client.get<Json>('/api/v1/rate-limits', owner())).body.globalRequests)).toBe(5000);
  });

  it('needs subscriptions:read (403 for an identity-only key, 401 without credentials)', async () => {
    const idOnly = await acme.apiKeyOf(memberBearer);
    expect((await t.client.get('/api/v1/subscription', { apiKey: idOnly })).status).toBe(403);
    expect((await t.client.get('/api/v1/subscription-plans', { apiKey: idOnly })).status).toBe(403);
    expect((await t.client.get('/api/v1/subscription')).status).toBe(401);
  });
});

describe('nested GraphQL for admin consoles', () => {
  it('reads Tenant.plans, Tenant.rateLimitDefaults, User.subscription and User.effectiveRateLimits', async () => {
    await t.client.put(`/api/v1/admin/users/${memberId}/subscription`, { planSlug: 'gold' }, owner());
    const res = await t.client.gql<{ tenant: { plans: { slug: string }[]; rateLimitDefaults: { globalRequests: number }; users: { username: string; subscription: { plan: { slug: string } } | null; effectiveRateLimits: { speakerService: { speakerVerificationExecutions: number } } }[] } }>(
      `query ($id: ID!) { tenant(id: $id) { plans { slug } rateLimitDefaults { globalRequests }
        users { username subscription { plan { slug } } effectiveRateLimits { speakerService { speakerVerificationExecutions } } } } }`,
      { id: acme.id }, owner());
    expect(res.errors).toEqual([]);
    expect(res.data?.tenant.plans.map((p) => p.slug)).toEqual(expect.arrayContaining(['gold', 'bronze', 'retired']));
    expect(res.data?.tenant.rateLimitDefaults.globalRequests).toBeNull();
    const mia = res.data?.tenant.users.find((u) => u.username === 'mia');
    expect(mia?.subscription?.plan.slug).toBe('gold');
    expect(mia?.effectiveRateLimits.speakerService.speakerVerificationExecutions).toBe(60);
  });

  it("refuses another user's subscription to a member and another tenant's plans to a tenant admin", async () => {
    const res = await t.client.gql<{ me: unknown }>(`{ me { subscription { id } } }`, {}, { bearer: memberBearer });
    expect(res.errors).toEqual([]);
    const idOnly = await acme.apiKeyOf(memberBearer);
    const scoped = await t.client.gql(`{ me { subscription { id } } }`, {}, { apiKey: idOnly });
    expect(scoped.errors[0]?.extensions?.code).toBe('FORBIDDEN');
    const systemTenant = (await t.client.get<{ tenantId: string }>('/api/v1/users/me', { apiKey: t.rootKey })).body.tenantId;
    const foreign = await t.client.gql(`query ($id: ID!) { tenant(id: $id) { plans { slug } } }`, { id: systemTenant }, owner());
    expect(foreign.errors[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

/** Fixed windows are aligned to the minute: start a burst with enough of the current window left. */
async function awaitWindowRoom(secondsNeeded = 12): Promise<void> {
  const intoWindow = (Date.now() / 1000) % 60;
  if (60 - intoWindow < secondsNeeded) await new Promise((r) => setTimeout(r, (60 - intoWindow + 0.2) * 1000));
}

/** A tenant whose administrator sets the limits and whose member (with an untouched budget) is measured. */
async function tenantWithMember(name: string): Promise<{ tenant: TenantWithIdp; adminBearer: string; memberBearer: string }> {
  const tenant = await createTenantWithIdp(t, [{ username: `${name}-boss`, password: 'pw-boss' }, { username: name, password: 'pw-member' }]);
  const adminBearer = (await tenant.login(`${name}-boss`, 'pw-boss')).access_token;
  const memberBearer = (await tenant.login(name, 'pw-member')).access_token; // logins are not counted
  return { tenant, adminBearer, memberBearer };
}

describe('enforcement of globalRequests', () => {
  let limited: Awaited<ReturnType<typeof tenantWithMember>>;
  beforeAll(async () => {
    limited = await tenantWithMember('busy');
    const patched = await t.client.request('PATCH', '/api/v1/admin/rate-limits/defaults', { bearer: limited.adminBearer, body: { globalRequests: 10 } });
    expect(patched.status, patched.text).toBe(200);
  });
  afterAll(async () => { await limited?.tenant.close(); });

  it('lets exactly 10 of 200 concurrent requests through a limit of 10 per minute, then answers 429 with Retry-After and RateLimit headers', async () => {
    await awaitWindowRoom();
    const caller = { bearer: limited.memberBearer };
    const results = await Promise.all(Array.from({ length: 200 }, () => t.client.get('/api/v1/rate-limits', caller)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(190);
    const r = refused[0];
    expect(r?.headers.get('content-type')).toContain('application/problem+json');
    expect(r?.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(Number(r?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r?.headers.get('ratelimit-policy')).toBe('"globalRequests";q=10;w=60');
    expect(r?.headers.get('ratelimit')).toMatch(/^"globalRequests";r=0;t=\d+$/);
    expect(ok[0]?.headers.get('ratelimit')).toMatch(/^"globalRequests";r=\d+;t=\d+$/);
    const gql = await t.client.gql('{ myRateLimits { globalRequests } }', {}, caller);
    expect(gql.status).toBe(429);
    expect(gql.errors[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number((gql.errors[0]?.extensions as Json).retryAfterSeconds)).toBeGreaterThan(0);
    // other users of the tenant keep their own budget
    expect((await t.client.get('/api/v1/rate-limits', { bearer: limited.adminBearer })).status).toBe(200);
  });

  it('enforces an operation limit inside the subgraph that owns it (users.userLookup)', async () => {
    const lookup = await createTenantWithIdp(t, [{ username: 'looker', password: 'pw-looker' }]);
    try {
      const bearer = (await lookup.login('looker', 'pw-looker')).access_token;
      const me = await t.client.get<{ id: string }>('/api/v1/users/me', { bearer });
      const o = await t.client.request('PATCH', `/api/v1/admin/users/${me.body.id}/limit-overrides`, { bearer, body: { rateLimits: { users: { userLookup: 3 } } } });
      expect(o.status, o.text).toBe(200);
      await awaitWindowRoom();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await t.client.get(`/api/v1/admin/tenants/${lookup.id}/users`, { bearer })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const refused = await t.client.get<Json>(`/api/v1/admin/tenants/${lookup.id}/users`, { bearer });
      expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(refused.headers.get('ratelimit-policy')).toBe('"users.userLookup";q=3;w=60');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const gql = await t.client.gql(`query ($id: ID!) { tenant(id: $id) { users { id } } }`, { id: lookup.id }, { bearer });
      expect(gql.errors[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', policy: 'users.userLookup' });
      // the limit is per operation: other reads go on
      expect((await t.client.get(`/api/v1/admin/tenants/${lookup.id}`, { bearer })).status).toBe(200);
    } finally {
      await lookup.close();
    }
  });

  describe('across two edge processes sharing Postgres and Redis', () => {
    let second: PlatformProcess;
    let secondUrl: string;
    let dataDir: string;
    let spread: Awaited<ReturnType<typeof tenantWithMember>>;
    beforeAll(async () => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-edge2-'));
      const port = await freePort();
      second = spawnPlatform({ ...t.env, DATA_DIR: dataDir, PORT: String(port), DEV_IDP_ENABLED: 'false', LOG_LEVEL: 'warn' });
      secondUrl = `http://127.0.0.1:${port}`;
      await waitReady(`${secondUrl}/readyz`, second);
      spread = await tenantWithMember('spread');
      expect((await t.client.request('PATCH', '/api/v1/admin/rate-limits/defaults', { bearer: spread.adminBearer, body: { globalRequests: 10 } })).status).toBe(200);
    });
    afterAll(async () => {
      await spread?.tenant.close();
      await second?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('still lets exactly 10 of 200 concurrent requests through', async () => {
      await awaitWindowRoom();
      const edges = [t.client, new EdgeClient(secondUrl)];
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => edges[i % 2]?.get('/api/v1/rate-limits', { bearer: spread.memberBearer })));
      expect(results.filter((r) => r?.status === 200)).toHaveLength(10);
      expect(results.filter((r) => r?.status === 429)).toHaveLength(190);
    });
  });
});
