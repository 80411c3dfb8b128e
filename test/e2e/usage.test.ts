import { UserDirectory } from '@voxgate/tenancy';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingSubgraph, calendarMonth, UsageLedger } from '@voxgate/billing';
import { connectDatabase, connectRedis, createLogger, FixedWindowRateLimiter, type DbHandle, type Identity, type Redis } from '@voxgate/kit';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenantWithIdp, type TenantWithIdp } from '../support/tenants';

interface QuotaUsage { group: string; quota: string; used: number; reserved: number; limit: number; remaining: number }
interface Usage { periodStart: string; periodEnd: string; quotas: QuotaUsage[] }
interface GqlError { message: string; extensions?: Record<string, unknown> }

const USAGE_FIELDS = 'periodStart periodEnd quotas { group quota used reserved limit remaining }';
const TRANSCRIPTION = 'speech-service.monthlyTranscriptionMinutes';

let t: TestPlatform;
let handle: DbHandle;
let redis: Redis;
let ledger: UsageLedger;
let rootUserId: string;
let systemTenantId: string;
let acme: TenantWithIdp;
let ownerKey: string; // tenant-admin of acme, every scope of the role
let miaId: string;
let miaBearer: string;

const root = () => ({ apiKey: t.rootKey });
const sys = (quota: string, amount: number, sourceKey: string, ttlSeconds?: number) =>
  ({ tenantId: systemTenantId, userId: rootUserId, quota, amount, sourceKey, ttlSeconds });
const key = (label: string) => `${label}:${randomUUID()}`;
const quotaOf = (u: { quotas: QuotaUsage[] }, group: string, quota: string) => u.quotas.find((q) => q.group === group && q.quota === quota);

/** The rejection of a promise, as the GraphQL error it is. */
async function rejection(p: Promise<unknown>): Promise<GqlError> {
  try {
    await p;
  } catch (e) {
    return e as GqlError;
  }
  throw new Error('expected a rejection');
}

async function count(sourceKey: string): Promise<number> {
  const [row] = await handle.sql<{ n: number }[]>`select count(*)::int as n from billing.usage_records where source_key = ${sourceKey}`;
  return row?.n ?? 0;
}

beforeAll(async () => {
  t = await startTestPlatform();
  handle = connectDatabase(t.databaseUrl);
  redis = connectRedis(t.redisUrl);
  ledger = new UsageLedger({ db: handle.db, txDb: handle.txDb, redis });
  const me = await t.client.get<{ id: string; tenantId: string }>('/api/v1/users/me', root());
  expect(me.status, me.text).toBe(200);
  rootUserId = me.body.id;
  systemTenantId = me.body.tenantId;
  const patched = await t.client.request('PATCH', `/api/v1/admin/users/${rootUserId}/limit-overrides`, {
    ...root(),
    body: {
      quotas: {
        'speech-service': { monthlyTranscriptionMinutes: 10, monthlySummaries: 5, monthlyTranslations: 5, monthlySummaryTokens: 100 },
        'text-service': { monthlyTextTranslations: 3 },
      },
    },
  });
  expect(patched.status, patched.text).toBe(200);

  acme = await createTenantWithIdp(t, [{ username: 'owner', password: 'pw-owner' }, { username: 'mia', password: 'pw-mia' }]);
  const ownerBearer = (await acme.login('owner', 'pw-owner')).access_token;
  const scopes = (await t.client.gql<{ roles: { slug: string; scopes: string[] }[] }>('{ roles { slug scopes } }', {}, root()))
    .data?.roles.find((r) => r.slug === 'tenant-admin')?.scopes ?? [];
  ownerKey = await acme.apiKeyOf(ownerBearer, scopes);
  miaBearer = (await acme.login('mia', 'pw-mia')).access_token;
  miaId = (await t.client.get<{ id: string }>('/api/v1/users/me', { bearer: miaBearer })).body.id;
});

afterAll(async () => {
  redis?.disconnect();
  await handle?.close();
  await acme?.close();
  await t?.close();
});

describe('reservations', () => {
  it('50 parallel reservations of 1 against a limit of 10: exactly 10 succeed, the rest get QUOTA_EXCEEDED naming the quota and the period end', async () => {
    const batch = randomUUID();
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) => ledger.reserve(sys(TRANSCRIPTION, 1, `par:${batch}:${i}`))),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(40);
    const periodEnd = calendarMonth(new Date()).end.toISOString();
    for (const r of refused) {
      const err = r.reason as GqlError;
      expect(err.extensions?.code).toBe('QUOTA_EXCEEDED');
      expect(err.message).toContain(TRANSCRIPTION);
      expect(err.message).toContain(periodEnd);
      expect(err.extensions).toMatchObject({ quota: TRANSCRIPTION, limit: 10, used: 10, periodEnd });
      expect(err.extensions?.retryAfterSeconds).toBeGreaterThan(0);
    }
    const [row] = await handle.sql<{ n: number }[]>`select count(*)::int as n from billing.usage_records where source_key like ${`par:${batch}:%`}`;
    expect(row?.n).toBe(10);
    const usage = await ledger.usage(systemTenantId, rootUserId);
    expect(quotaOf(usage, 'speech-service', 'monthlyTranscriptionMinutes')).toEqual({
      group: 'speech-service', quota: 'monthlyTranscriptionMinutes', used: 0, reserved: 10, limit: 10, remaining: 0,
    });
  });

  it('the same sourceKey twice makes one record, also when sent concurrently', async () => {
    const k = key('once');
    const [a, b] = await Promise.all([ledger.reserve(sys('speech-service.monthlySummaryTokens', 30, k)), ledger.reserve(sys('speech-service.monthlySummaryTokens', 30, k))]);
    const c = await ledger.reserve(sys('speech-service.monthlySummaryTokens', 30, k));
    expect(b.id).toBe(a.id);
    expect(c.id).toBe(a.id);
    expect(await count(k)).toBe(1);
    expect(quotaOf(await ledger.usage(systemTenantId, rootUserId), 'speech-service', 'monthlySummaryTokens')?.reserved).toBe(30);
    const direct = key('direct');
    const r1 = await ledger.record(sys('speech-service.monthlySummaryTokens', 5, direct));
    const r2 = await ledger.record(sys('speech-service.monthlySummaryTokens', 5, direct));
    expect(r2.id).toBe(r1.id);
    expect(r1.state).toBe('COMMITTED');
    expect(await count(direct)).toBe(1);
    // one key is one piece of work: reusing it for another quota is a conflict, not a second record
    expect((await rejection(ledger.reserve(sys('speech-service.monthlySummaries', 1, k)))).extensions?.code).toBe('CONFLICT');
  });

  it('release frees the budget, is idempotent, and a committed record cannot be released', async () => {
    const q = 'speech-service.monthlySummaries'; // limit 5
    const big = key('big');
    await ledger.reserve(sys(q, 5, big));
    expect((await rejection(ledger.reserve(sys(q, 1, key('over'))))).extensions?.code).toBe('QUOTA_EXCEEDED');
    const released = await ledger.release({ tenantId: systemTenantId, sourceKey: big });
    expect(released.state).toBe('RELEASED');
    expect((await ledger.release({ tenantId: systemTenantId, sourceKey: big })).state).toBe('RELEASED');
    expect(await count(big)).toBe(1);
    const small = key('small');
    await ledger.reserve(sys(q, 5, small));
    await ledger.commit({ tenantId: systemTenantId, sourceKey: small });
    expect((await rejection(ledger.release({ tenantId: systemTenantId, sourceKey: small }))).extensions?.code).toBe('CONFLICT');
    expect((await rejection(ledger.commit({ tenantId: systemTenantId, sourceKey: big }))).extensions?.code).toBe('CONFLICT');
    expect((await rejection(ledger.release({ tenantId: systemTenantId, sourceKey: key('never') }))).extensions?.code).toBe('NOT_FOUND');
    expect(quotaOf(await ledger.usage(systemTenantId, rootUserId), 'speech-service', 'monthlySummaries')).toMatchObject({ used: 5, reserved: 0, remaining: 0 });
  });

  it('commit records the actual amount (even above the reservation) and is idempotent', async () => {
    const q = 'speech-service.monthlyTranslations'; // limit 5
    const stream = key('session');
    await ledger.reserve(sys(q, 2, stream));
    const first = await ledger.commit({ tenantId: systemTenantId, sourceKey: stream, amount: 4 });
    expect(first).toMatchObject({ state: 'COMMITTED', amount: 4, expiresAt: null });
    const again = await ledger.commit({ tenantId: systemTenantId, sourceKey: stream, amount: 1 });
    expect(again).toMatchObject({ id: first.id, state: 'COMMITTED', amount: 4 });
    expect(quotaOf(await ledger.usage(systemTenantId, rootUserId), 'speech-service', 'monthlyTranslations')).toMatchObject({ used: 4, reserved: 0, limit: 5, remaining: 1 });
    // the budget left is what the committed amount leaves, not what was reserved
    expect((await rejection(ledger.reserve(sys(q, 2, key('more'))))).extensions).toMatchObject({ code: 'QUOTA_EXCEEDED', used: 4 });
    await ledger.reserve(sys(q, 1, key('fits')));
    // a stream that failed still counts its duration, beyond the limit
    const failed = key('failed');
    const over = await ledger.record(sys(q, 3, failed));
    expect(over.amount).toBe(3);
    expect(quotaOf(await ledger.usage(systemTenantId, rootUserId), 'speech-service', 'monthlyTranslations')).toMatchObject({ used: 7, reserved: 1, remaining: 0 });
  });

  it('work reserved in instalments commits its actual amount across them in order, the last taking any excess', async () => {
    const q = 'speech-service.monthlySummaryTokens'; // limit 100, shared with other tests of this file
    const base = key('instalments');
    await ledger.reserve(sys(q, 3, base));
    await ledger.reserve(sys(q, 3, `${base}:2`));
    await ledger.reserve(sys(q, 3, `${base}:3`));
    const rows = await ledger.commitInstalments({ tenantId: systemTenantId, sourceKey: base, amount: 4 });
    expect(rows.map((r) => [r.sourceKey, r.state, r.amount])).toEqual([[base, 'COMMITTED', 3], [`${base}:2`, 'COMMITTED', 1], [`${base}:3`, 'COMMITTED', 0]]);
    // idempotent: committed instalments count as they are
    expect((await ledger.commitInstalments({ tenantId: systemTenantId, sourceKey: base, amount: 9 })).map((r) => r.amount)).toEqual([3, 1, 0]);
    const over = key('overrun');
    await ledger.reserve(sys(q, 2, over));
    await ledger.reserve(sys(q, 2, `${over}:2`));
    expect((await ledger.commitInstalments({ tenantId: systemTenantId, sourceKey: over, amount: 7 })).map((r) => r.amount)).toEqual([2, 5]);
    // a key that merely starts alike is another piece of work
    expect((await rejection(ledger.commitInstalments({ tenantId: systemTenantId, sourceKey: `${over}:2:x`, amount: 1 }))).extensions?.code).toBe('NOT_FOUND');
    expect((await rejection(ledger.commitInstalments({ tenantId: systemTenantId, sourceKey: key('none'), amount: 1 }))).extensions?.code).toBe('NOT_FOUND');
  });

  it('an expired reservation stops counting', async () => {
    const q = 'text-service.monthlyTextTranslations'; // limit 3
    const shortLived = key('short');
    await ledger.reserve(sys(q, 3, shortLived, 1));
    expect((await rejection(ledger.reserve(sys(q, 1, key('blocked'))))).extensions?.code).toBe('QUOTA_EXCEEDED');
    await new Promise((r) => setTimeout(r, 1_300));
    expect(quotaOf(await ledger.usage(systemTenantId, rootUserId), 'text-service', 'monthlyTextTranslations')).toMatchObject({ used: 0, reserved: 0, remaining: 3 });
    await ledger.reserve(sys(q, 3, key('after')));
  });

  it('unknown quotas, gauge quotas and non-positive or fractional amounts are BAD_USER_INPUT', async () => {
    const code = async (p: Promise<unknown>) => (await rejection(p)).extensions?.code;
    expect(await code(ledger.reserve(sys('speech-service.nope', 1, key('x'))))).toBe('BAD_USER_INPUT');
    expect(await code(ledger.reserve(sys('speech-service.storageLimit', 1, key('x'))))).toBe('BAD_USER_INPUT');
    expect(await code(ledger.record(sys('speaker-service.maxSpeakers', 1, key('x'))))).toBe('BAD_USER_INPUT');
    expect(await code(ledger.reserve(sys(TRANSCRIPTION, 0, key('x'))))).toBe('BAD_USER_INPUT');
    expect(await code(ledger.reserve(sys(TRANSCRIPTION, -1, key('x'))))).toBe('BAD_USER_INPUT');
    expect(await code(ledger.record(sys(TRANSCRIPTION, 1.5, key('x'))))).toBe('BAD_USER_INPUT');
    expect(await code(ledger.commit({ tenantId: systemTenantId, sourceKey: key('x'), amount: 2.5 }))).toBe('BAD_USER_INPUT');
  });
});

describe('reading usage', () => {
  it('GET /api/v1/usage and { me { usage } } show used, reserved, limit and remaining for the caller', async () => {
    await ledger.record(sys('speaker-service.monthlySpeakerVerifications', 7, key('verify')));
    const rest = await t.client.get<Usage>('/api/v1/usage', root());
    expect(rest.status, rest.text).toBe(200);
    const month = calendarMonth(new Date());
    expect(rest.body.periodStart).toBe(month.start.toISOString());
    expect(rest.body.periodEnd).toBe(month.end.toISOString());
    expect(rest.body.quotas.map((q) => `${q.group}.${q.quota}`)).toEqual([
      'speech-service.monthlyTranscriptionMinutes', 'speech-service.monthlySummaries', 'speech-service.monthlySummaryTokens',
      'speech-service.monthlyTranslations', 'speech-service.monthlyTranslationTokens', 'speaker-service.monthlySpeakerVerifications',
      'speaker-service.monthlySpeakerEnrollments', 'speaker-service.monthlySpeakerVoicePrintBuilds', 'text-service.monthlyTextTranslations',
      'text-service.monthlyTextTranslationTokens',
    ]);
    expect(quotaOf(rest.body, 'speaker-service', 'monthlySpeakerVerifications')).toEqual({
      group: 'speaker-service', quota: 'monthlySpeakerVerifications', used: 7, reserved: 0, limit: 10_000, remaining: 9_993,
    });
    expect(quotaOf(rest.body, 'speech-service', 'monthlyTranscriptionMinutes')).toMatchObject({ reserved: 10, limit: 10, remaining: 0 });
    expect(rest.body).toEqual(JSON.parse(JSON.stringify({ ...(await ledger.usage(systemTenantId, rootUserId)) })));

    const gql = await t.client.gql<{ me: { usage: Usage }; myUsage: Usage }>(`{ me { usage { ${USAGE_FIELDS} } } myUsage { ${USAGE_FIELDS} } }`, {}, root());
    expect(gql.errors).toEqual([]);
    expect(gql.data?.me.usage).toEqual(rest.body);
    expect(gql.data?.myUsage).toEqual(rest.body);
  });

  it('an identity-only API key still sees its own usage', async () => {
    await ledger.record({ tenantId: acme.id, userId: miaId, quota: 'monthlySpeakerEnrollments', amount: 2, sourceKey: key('enroll') });
    const identityOnly = await acme.apiKeyOf(miaBearer);
    const rest = await t.client.get<Usage>('/api/v1/usage', { apiKey: identityOnly });
    expect(rest.status, rest.text).toBe(200);
    expect(quotaOf(rest.body, 'speaker-service', 'monthlySpeakerEnrollments')).toEqual({
      group: 'speaker-service', quota: 'monthlySpeakerEnrollments', used: 2, reserved: 0, limit: 1_000, remaining: 998,
    });
    // the root user's overrides and usage are not mia's
    expect(quotaOf(rest.body, 'speech-service', 'monthlyTranscriptionMinutes')).toMatchObject({ used: 0, reserved: 0, limit: 6_000 });
    const gql = await t.client.gql<{ me: { usage: Usage } }>(`{ me { usage { ${USAGE_FIELDS} } } }`, {}, { apiKey: identityOnly });
    expect(gql.errors).toEqual([]);
    expect(gql.data?.me.usage).toEqual(rest.body);
    const anonymous = await t.client.get('/api/v1/usage');
    expect(anonymous.status).toBe(401);
  });

  it("another tenant's user's usage is not visible; admins of the same tenant and the system tenant see it", async () => {
    const query = `query ($id: ID!) { tenant(id: $id) { users { id usage { ${USAGE_FIELDS} } } } }`;
    const foreign = await t.client.gql<{ tenant: { users: { id: string; usage: Usage }[] } | null }>(query, { id: systemTenantId }, { apiKey: ownerKey });
    expect(foreign.errors.length).toBeGreaterThan(0);
    expect(foreign.data?.tenant ?? null).toBeNull();

    const sameTenant = await t.client.gql<{ tenant: { users: { id: string; usage: Usage }[] } }>(query, { id: acme.id }, { apiKey: ownerKey });
    expect(sameTenant.errors).toEqual([]);
    expect(quotaOf(sameTenant.data!.tenant.users.find((u) => u.id === miaId)!.usage, 'speaker-service', 'monthlySpeakerEnrollments')?.used).toBe(2);

    const system = await t.client.gql<{ tenant: { users: { id: string; usage: Usage }[] } }>(query, { id: acme.id }, root());
    expect(system.errors).toEqual([]);
    expect(quotaOf(system.data!.tenant.users.find((u) => u.id === miaId)!.usage, 'speaker-service', 'monthlySpeakerEnrollments')?.used).toBe(2);
  });

  it('User.usage refuses (FORBIDDEN) other users to callers without admin:subscriptions:read and to admins of another tenant', async () => {
    // straight at the billing subgraph, so the entity resolver's own rule is what answers
    const sub = await billingSubgraph({
      db: handle.db, txDb: handle.txDb, redis, limiter: new FixedWindowRateLimiter(redis), log: createLogger('usage-test', 'silent'),
      users: new UserDirectory(handle.db),
    });
    const base: Identity = {
      kind: 'user', tenantId: acme.id, tenantName: acme.name, userId: randomUUID(), username: 'x', roleId: null, hierarchyOrder: 0,
      scopes: [], credential: 'api-key', apiKeyId: null, clientAddress: null, userAgent: null,
    };
    // the entity field's resolver as the schema built it (with its @Authorized check), without the `graphql` package
    const usageField = (sub.schema.getType('User') as unknown as { getFields(): Record<string, { resolve: (...args: unknown[]) => unknown }> })
      .getFields().usage;
    const ask = async (identity: Identity, user: { id: string; tenantId: string }) => {
      try {
        const usage = await usageField!.resolve(user, {}, sub.createContext(identity), { fieldName: 'usage', parentType: sub.schema.getType('User') });
        return (usage as { quotas: unknown[] }).quotas.length > 0 ? 'OK' : 'EMPTY';
      } catch (e) {
        return (e as GqlError).extensions?.code ?? String(e);
      }
    };
    const mia = { id: miaId, tenantId: acme.id };
    expect(await ask({ ...base, userId: miaId }, mia)).toBe('OK');
    expect(await ask(base, mia)).toBe('FORBIDDEN');
    expect(await ask({ ...base, scopes: ['admin:subscriptions:read'] }, mia)).toBe('OK');
    const otherTenant = { ...base, tenantId: randomUUID(), tenantName: 'elsewhere', scopes: ['admin:subscriptions:read'] };
    expect(await ask(otherTenant, mia)).toBe('FORBIDDEN');
    // the same user id under another tenant is not the caller
    expect(await ask({ ...otherTenant, userId: miaId, scopes: [] }, mia)).toBe('FORBIDDEN');
    expect(await ask({ ...base, tenantId: systemTenantId, tenantName: 'system', scopes: ['admin:subscriptions:read'] }, mia)).toBe('OK');
  });
});
