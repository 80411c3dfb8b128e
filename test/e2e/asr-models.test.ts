import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DbHandle } from '@voxgate/kit';
import { createEngineClient } from '@voxgate/kit/grpc';
// what the sessions work calls in-process
import { AliasResolution, engineClientConfig, seedAsrReferenceModels } from '@voxgate/speaker-models';
import type { Caller } from '../support/http';
import { deadPort, startEngineDouble, type EngineDouble } from '../support/engines';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenantWithIdp, type TenantWithIdp } from '../support/tenants';

type Json = Record<string, unknown>;

const ADMIN = '/api/v1/speech-services/admin/asr';
const USER = '/api/v1/speech-services/model-aliases';
const SV = '/api/v1/speech-services/admin/sentence-verification';
const REF_MODEL = 'pocketsphinx-en-us';

const MODEL_FIELDS = [
  'name', 'displayName', 'description', 'status', 'statusMessage', 'deprecatedAt', 'inactiveAt', 'supportedLocales', 'grpcTarget',
  'grpcTlsMode', 'grpcAuthority', 'grpcDeadlineMs', 'grpcMaxInboundMessageBytes', 'grpcMetadata', 'createdAt', 'updatedAt',
].sort();
const ALIAS_FIELDS = [
  'alias', 'type', 'displayName', 'description', 'resolvedModel', 'fallbackModel', 'isDefault', 'deprecated', 'deprecationDate', 'sunsetDate',
  'deprecationMessage', 'minHierarchyOrder', 'createdAt', 'updatedAt',
].sort();
const RESOLUTION_FIELDS = ['requestedAlias', 'alias', 'resolvedModel', 'usedFallback', 'deprecated', 'deprecationDate', 'sunsetDate', 'deprecationMessage'].sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const ASR_HEALTH_PATH = '/voxgate.engines.v1.SpeechRecognition/Health';

let t: TestPlatform;
let refEngine: EngineDouble; // stands in for the platform's reference ASR engine (ASR_ENGINE_TARGET)
let acme: TenantWithIdp;
let globex: TenantWithIdp;
let ownerBearer: string;
let ownerKey: string; // tenant-admin of acme (hierarchy 100), every scope
let viewerBearer: string; // viewer of acme (hierarchy 10)
let globexKey: string;
let adminScopes: string[];
let dbh: DbHandle;
const engines: EngineDouble[] = [];

beforeAll(async () => {
  refEngine = await startEngineDouble({ name: 'reference-asr' });
  engines.push(refEngine);
  t = await startTestPlatform({ ASR_ENGINE_TARGET: refEngine.address });
  dbh = connectDatabase(t.databaseUrl);
  acme = await createTenantWithIdp(t, [{ username: 'owner', password: 'pw-owner' }, { username: 'vic', password: 'pw-vic' }], { defaultRole: 'viewer' });
  globex = await createTenantWithIdp(t, [{ username: 'gadmin', password: 'pw-g' }]);
  adminScopes = (await t.client.gql<{ roles: { slug: string; scopes: string[] }[] }>('{ roles { slug scopes } }', {}, { apiKey: t.rootKey }))
    .data?.roles.find((r) => r.slug === 'tenant-admin')?.scopes ?? [];
  ownerBearer = (await acme.login('owner', 'pw-owner')).access_token;
  ownerKey = await acme.apiKeyOf(ownerBearer, adminScopes);
  viewerBearer = (await acme.login('vic', 'pw-vic')).access_token;
  globexKey = await globex.apiKeyOf((await globex.login('gadmin', 'pw-g')).access_token, adminScopes);
});
afterAll(async () => {
  for (const e of engines) await e.stop();
  await dbh?.close();
  await acme?.close();
  await globex?.close();
  await t?.close();
});

const owner = (): Caller => ({ apiKey: ownerKey });
const viewer = (): Caller => ({ bearer: viewerBearer });
const globexCaller = (): Caller => ({ apiKey: globexKey });
const patch = (path: string, body: unknown, caller: Caller = owner()) => t.client.request<Json>('PATCH', path, { ...caller, body });

async function engine(name: string): Promise<EngineDouble> {
  const e = await startEngineDouble({ name });
  engines.push(e);
  return e;
}

function body(name: string, extra: Json = {}): Json {
  return {
    name, displayName: `ASR ${name}`, description: 'speech recognition', supportedLocales: ['en-US', 'de-DE'],
    grpcTarget: '127.0.0.1:50061', grpcTlsMode: 'PLAINTEXT', grpcAuthority: 'asr.local', grpcDeadlineMs: 2500,
    grpcMaxInboundMessageBytes: 1_048_576, grpcMetadata: { 'x-team': 'speech' }, ...extra,
  };
}
function withoutName(b: Json): Json {
  const { name: _name, ...rest } = b;
  return rest;
}
const register = (b: Json, caller: Caller = owner()) => t.client.post<Json>(`${ADMIN}/models`, b, caller);
async function model(name: string, status?: string, extra: Json = {}, caller: Caller = owner()): Promise<Json> {
  const res = await register(body(name, { ...(status ? { status } : {}), ...extra }), caller);
  if (res.status !== 201) throw new Error(`register ${name}: ${res.status} ${res.text}`);
  return res.body;
}
const putAlias = (alias: string, b: Json, caller: Caller = owner()) => t.client.put<Json>(`${ADMIN}/model-aliases/${alias}`, b, caller);
const aliasBody = (resolvedModel: string, extra: Json = {}): Json => ({ type: 'FAMILY', displayName: `Alias to ${resolvedModel}`, resolvedModel, isDefault: false, ...extra });
async function alias(name: string, b: Json, caller: Caller = owner()): Promise<Json> {
  const res = await putAlias(name, b, caller);
  if (res.status !== 200 && res.status !== 201) throw new Error(`alias ${name}: ${res.status} ${res.text}`);
  return res.body;
}
const models = async (caller: Caller = owner()) => (await t.client.get<Json[]>(`${ADMIN}/models`, caller)).body;
const aliases = async (caller: Caller = owner()) => (await t.client.get<Json[]>(`${ADMIN}/model-aliases`, caller)).body;
const byName = (rows: Json[], name: string) => rows.find((r) => r.name === name);
const byAlias = (rows: Json[], name: string) => rows.find((r) => r.alias === name);

// --------------------------------------------------------------------------------------------------

describe('seeding with the reference engine', () => {
  it('a tenant first reading its ASR models finds the reference model, AVAILABLE, dialling ASR_ENGINE_TARGET', async () => {
    const list = await models();
    expect(list.map((m) => m.name)).toEqual([REF_MODEL]);
    const m = list[0] as Json;
    expect(Object.keys(m).sort()).toEqual(MODEL_FIELDS);
    expect(m).toMatchObject({
      name: REF_MODEL, displayName: 'PocketSphinx US English (reference engine)', status: 'AVAILABLE', supportedLocales: ['en-US'],
      grpcTarget: refEngine.address, grpcTlsMode: 'PLAINTEXT', grpcDeadlineMs: 5000, grpcAuthority: null, deprecatedAt: null, inactiveAt: null,
    });
  });

  it('and the alias `default` (FAMILY, the tenant default) resolving to it, without fallback', async () => {
    const list = await aliases();
    expect(list.map((a) => a.alias)).toEqual(['default']);
    expect(Object.keys(list[0] as Json).sort()).toEqual(ALIAS_FIELDS);
    expect(list[0]).toMatchObject({ alias: 'default', type: 'FAMILY', resolvedModel: REF_MODEL, fallbackModel: null, isDefault: true, deprecated: false });
  });

  it('the first read of any path seeds: discovery by a viewer of a fresh tenant resolves the default at once', async () => {
    const fresh = await createTenantWithIdp(t, [{ username: 'first', password: 'pw-1' }, { username: 'second', password: 'pw-2' }], { defaultRole: 'viewer' });
    try {
      await fresh.login('first', 'pw-1');
      const v = (await fresh.login('second', 'pw-2')).access_token;
      const res = await t.client.get<Json>(`${USER}/default`, { bearer: v });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ requestedAlias: 'default', alias: 'default', resolvedModel: REF_MODEL, usedFallback: false });
      const rows = await dbh.sql`select count(*)::int as n from speaker_models.seeded_families where tenant_id = ${fresh.id} and family = 'asr'`;
      expect(rows[0]?.n).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('the seeded model answers a connection test on the SpeechRecognition service', async () => {
    const before = refEngine.calls.length;
    const res = await t.client.post<Json>(`${ADMIN}/models/${REF_MODEL}/test-connection`, undefined, owner());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, status: 'SERVING', message: 'reference-asr' });
    expect(refEngine.calls.slice(before).map((c) => c.path)).toEqual([ASR_HEALTH_PATH]);
  });

  it('is done once: deleting the seeded alias and model does not bring them back (even from another process)', async () => {
    const g = globexCaller();
    expect(byName(await models(g), REF_MODEL)).toBeDefined();
    // the only alias is the default, so it may go; then the model is free
    expect((await t.client.delete(`${ADMIN}/model-aliases/default`, g)).status).toBe(204);
    expect((await t.client.delete(`${ADMIN}/models/${REF_MODEL}`, g)).status).toBe(204);
    expect(await models(g)).toEqual([]);
    expect(await aliases(g)).toEqual([]);
    // a process that has never seen the tenant asks the database, which remembers the seeding
    const other = connectDatabase(t.databaseUrl);
    try {
      expect(await seedAsrReferenceModels({ db: other.db, txDb: other.txDb, asrReferenceEngine: { target: refEngine.address } }, globex.id)).toBe(false);
    } finally {
      await other.close();
    }
    expect(await models(g)).toEqual([]);
    expect(await aliases(g)).toEqual([]);
    const resolution = await t.client.get<Json>(`${USER}/default`, g);
    expect(resolution.status).toBe(404);
  });

  it('concurrent first seedings from many processes seed exactly once', async () => {
    const tenantId = randomUUID();
    const handles = Array.from({ length: 6 }, () => connectDatabase(t.databaseUrl));
    try {
      const results = await Promise.all(handles.map((h) => seedAsrReferenceModels({ db: h.db, txDb: h.txDb, asrReferenceEngine: { target: '127.0.0.1:50061' } }, tenantId)));
      expect(results.filter(Boolean)).toHaveLength(1);
    } finally {
      for (const h of handles) await h.close();
    }
    const counts = await dbh.sql`select
      (select count(*)::int from speaker_models.models where tenant_id = ${tenantId} and family = 'asr') as models,
      (select count(*)::int from speaker_models.model_aliases where tenant_id = ${tenantId} and family = 'asr' and is_default) as defaults,
      (select count(*)::int from speaker_models.seeded_families where tenant_id = ${tenantId}) as claims`;
    expect(counts[0]).toEqual({ models: 1, defaults: 1, claims: 1 });
  });

  it('without a reference engine nothing is seeded', async () => {
    const tenantId = randomUUID();
    expect(await seedAsrReferenceModels({ db: dbh.db, txDb: dbh.txDb, asrReferenceEngine: null }, tenantId)).toBe(false);
    expect(await seedAsrReferenceModels({ db: dbh.db, txDb: dbh.txDb }, tenantId)).toBe(false);
    const rows = await dbh.sql`select
      (select count(*)::int from speaker_models.models where tenant_id = ${tenantId}) as models,
      (select count(*)::int from speaker_models.seeded_families where tenant_id = ${tenantId}) as claims`;
    expect(rows[0]).toEqual({ models: 0, claims: 0 });
  });

  it('a tenant that configured ASR before the reference engine was enabled keeps its default and its own names', async () => {
    const tenantId = randomUUID();
    const [own] = await dbh.sql<{ id: string }[]>`insert into speaker_models.models
      (tenant_id, family, name, display_name, status, supported_locales, grpc_target, grpc_tls_mode, grpc_deadline_ms)
      values (${tenantId}, 'asr', 'own-asr', 'Own', 'AVAILABLE', '{en-US}', '127.0.0.1:1', 'PLAINTEXT', 5000) returning id`;
    await dbh.sql`insert into speaker_models.model_aliases (tenant_id, family, alias, type, display_name, resolved_model_id, is_default)
      values (${tenantId}, 'asr', 'main', 'FAMILY', 'Main', ${own?.id ?? null}, true)`;
    expect(await seedAsrReferenceModels({ db: dbh.db, txDb: dbh.txDb, asrReferenceEngine: { target: '127.0.0.1:50061' } }, tenantId)).toBe(true);
    const rows = await dbh.sql<{ alias: string; is_default: boolean }[]>`select alias, is_default from speaker_models.model_aliases
      where tenant_id = ${tenantId} and family = 'asr' order by alias`;
    expect(rows.map((r) => [r.alias, r.is_default])).toEqual([['default', false], ['main', true]]);
  });
});

// --------------------------------------------------------------------------------------------------

describe('ASR models', () => {
  it('register answers 201 with the whole record; a new model starts AVAILABLE', async () => {
    const res = await register(body('asr-full'));
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(MODEL_FIELDS);
    const { createdAt, updatedAt, ...rest } = res.body;
    expect(rest).toEqual({
      name: 'asr-full', displayName: 'ASR asr-full', description: 'speech recognition', status: 'AVAILABLE', statusMessage: null,
      deprecatedAt: null, inactiveAt: null, supportedLocales: ['en-US', 'de-DE'], grpcTarget: '127.0.0.1:50061', grpcTlsMode: 'PLAINTEXT',
      grpcAuthority: 'asr.local', grpcDeadlineMs: 2500, grpcMaxInboundMessageBytes: 1_048_576, grpcMetadata: { 'x-team': 'speech' },
    });
    expect(createdAt).toMatch(ISO);
    expect(updatedAt).toMatch(ISO);
  });

  it('register with only the required fields: optional fields null, grpcDeadlineMs 5000', async () => {
    const res = await register({ name: 'asr-min', displayName: 'Min', supportedLocales: ['fr-FR'], grpcTarget: 'dns:///asr.internal:443', grpcTlsMode: 'SYSTEM_TRUST' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'AVAILABLE', description: null, grpcAuthority: null, grpcDeadlineMs: 5000, grpcMaxInboundMessageBytes: null, grpcMetadata: null });
  });

  it('an initial status may be given: MAINTENANCE; INACTIVE records inactiveAt; DEPRECATED deprecatedAt', async () => {
    expect((await model('asr-init-maint', 'MAINTENANCE')).status).toBe('MAINTENANCE');
    const inactive = await model('asr-init-inactive', 'INACTIVE');
    expect(inactive.status).toBe('INACTIVE');
    expect(String(inactive.inactiveAt)).toMatch(ISO);
    const dep = await model('asr-init-dep', 'DEPRECATED');
    expect(String(dep.deprecatedAt)).toMatch(ISO);
    expect((await register(body('asr-init-bad', { status: 'BROKEN' }))).status).toBe(400);
  });

  it('409 when the name is taken (also the seeded name)', async () => {
    await model('asr-taken');
    const res = await register(body('asr-taken', { displayName: 'again' }));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect((await register(body(REF_MODEL))).status).toBe(409);
    expect(byName(await models(), 'asr-taken')?.displayName).toBe('ASR asr-taken');
  });

  it.each([
    ['empty supportedLocales', { supportedLocales: [] }, 'supportedLocales'],
    ['a supportedLocales entry that is not BCP-47', { supportedLocales: ['en_US'] }, 'supportedLocales'],
    ['grpcDeadlineMs 0', { grpcDeadlineMs: 0 }, 'grpcDeadlineMs'],
    ['target "nope"', { grpcTarget: 'nope' }, 'grpcTarget'],
    ['a name with capitals and spaces', { name: 'Bad Name' }, 'name'],
    ['a reserved metadata key', { grpcMetadata: { 'grpc-timeout': '1' } }, 'grpcMetadata'],
    ['MTLS without deployment client certificate', { grpcTlsMode: 'MTLS' }, 'grpcTlsMode'],
  ])('register refuses %s with 400 naming the field, and saves nothing', async (_label, extra, field) => {
    const name = `asr-bad-${Math.random().toString(36).slice(2, 8)}`;
    const res = await register(body(name, extra));
    expect(res.status, res.text).toBe(400);
    expect(res.text).toContain(field);
    expect(byName(await models(), String((extra as Json).name ?? name))).toBeUndefined();
  });

  it('register refuses missing supportedLocales, an unknown field, and thresholds (a sentver setting): 400', async () => {
    const { supportedLocales: _l, ...noLocales } = body('asr-nolocales');
    expect((await register(noLocales)).status).toBe(400);
    expect((await register(body('asr-extra', { maxExpectedTextLength: 10 }))).status).toBe(400);
    expect((await register(body('asr-thr', { thresholdDefaults: { strictAcceptThreshold: 0.5 } }))).status).toBe(400);
  });

  it('PUT replaces the configuration and clears omitted nullable fields; status stays', async () => {
    await model('asr-put', 'MAINTENANCE');
    const res = await t.client.put<Json>(`${ADMIN}/models/asr-put`, {
      displayName: 'Replaced', supportedLocales: ['en-GB'], grpcTarget: 'static:///10.0.0.1:50061,10.0.0.2:50061', grpcTlsMode: 'PLAINTEXT', grpcDeadlineMs: 900,
    }, owner());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'asr-put', displayName: 'Replaced', description: null, status: 'MAINTENANCE', supportedLocales: ['en-GB'],
      grpcTarget: 'static:///10.0.0.1:50061,10.0.0.2:50061', grpcAuthority: null, grpcDeadlineMs: 900, grpcMaxInboundMessageBytes: null, grpcMetadata: null,
    });
    expect(byName(await models(), 'asr-put')).toMatchObject({ displayName: 'Replaced', status: 'MAINTENANCE' });
  });

  it('PUT refuses name or status in the body and an invalid configuration (400); unknown model 404', async () => {
    await model('asr-put2');
    expect((await t.client.put(`${ADMIN}/models/asr-put2`, body('asr-put2'), owner())).status).toBe(400);
    expect((await t.client.put(`${ADMIN}/models/asr-put2`, { ...withoutName(body('asr-put2')), status: 'INACTIVE' }, owner())).status).toBe(400);
    expect((await t.client.put(`${ADMIN}/models/asr-put2`, withoutName(body('asr-put2', { supportedLocales: [] })), owner())).status).toBe(400);
    const { grpcDeadlineMs: _d, ...noDeadline } = withoutName(body('asr-put2'));
    expect((await t.client.put(`${ADMIN}/models/asr-put2`, noDeadline, owner())).status).toBe(400);
    expect((await t.client.put(`${ADMIN}/models/asr-nobody`, withoutName(body('asr-nobody')), owner())).status).toBe(404);
    expect(byName(await models(), 'asr-put2')?.supportedLocales).toEqual(['en-US', 'de-DE']);
  });

  it('PATCH status: DEPRECATED records deprecatedAt (kept while DEPRECATED), INACTIVE inactiveAt, leaving clears them', async () => {
    await model('asr-status');
    const dep = await patch(`${ADMIN}/models/asr-status/status`, { status: 'DEPRECATED', statusMessage: 'use v2' });
    expect(dep.status, dep.text).toBe(200);
    expect(dep.body).toMatchObject({ status: 'DEPRECATED', statusMessage: 'use v2', inactiveAt: null });
    expect(String(dep.body.deprecatedAt)).toMatch(ISO);
    const again = await patch(`${ADMIN}/models/asr-status/status`, { status: 'DEPRECATED', statusMessage: 'still' });
    expect(again.body.deprecatedAt).toBe(dep.body.deprecatedAt);
    const inactive = await patch(`${ADMIN}/models/asr-status/status`, { status: 'INACTIVE' });
    expect(inactive.body).toMatchObject({ status: 'INACTIVE', deprecatedAt: null, statusMessage: null });
    expect(String(inactive.body.inactiveAt)).toMatch(ISO);
    const back = await patch(`${ADMIN}/models/asr-status/status`, { status: 'AVAILABLE' });
    expect(back.body).toMatchObject({ status: 'AVAILABLE', deprecatedAt: null, inactiveAt: null });
    expect((await patch(`${ADMIN}/models/asr-status/status`, { status: 'BROKEN' })).status).toBe(400);
    expect((await patch(`${ADMIN}/models/asr-status/status`, { status: 'AVAILABLE', grpcTarget: 'x:1' })).status).toBe(400);
    expect((await patch(`${ADMIN}/models/asr-nobody/status`, { status: 'AVAILABLE' })).status).toBe(404);
  });

  it('DELETE answers 204, then 404', async () => {
    await model('asr-del');
    expect((await t.client.delete(`${ADMIN}/models/asr-del`, owner())).status).toBe(204);
    expect(byName(await models(), 'asr-del')).toBeUndefined();
    expect((await t.client.delete(`${ADMIN}/models/asr-del`, owner())).status).toBe(404);
  });

  it('DELETE is refused (409) while an alias resolves to the model or names it as fallback', async () => {
    await model('asr-ref-primary');
    await model('asr-ref-fallback');
    await alias('asr-ref', aliasBody('asr-ref-primary', { fallbackModel: 'asr-ref-fallback' }));
    const primary = await t.client.delete<Json>(`${ADMIN}/models/asr-ref-primary`, owner());
    expect(primary.status).toBe(409);
    expect(String(primary.body.detail ?? primary.text)).toContain('asr-ref');
    expect((await t.client.delete(`${ADMIN}/models/asr-ref-fallback`, owner())).status).toBe(409);
    expect((await t.client.put(`${ADMIN}/model-aliases/asr-ref/resolve`, { resolvedModel: 'asr-ref-primary' }, owner())).status).toBe(200);
    expect((await t.client.delete(`${ADMIN}/models/asr-ref-fallback`, owner())).status).toBe(204);
    expect(byName(await models(), 'asr-ref-primary')).toBeDefined();
  });
});

// --------------------------------------------------------------------------------------------------

describe('ASR aliases', () => {
  beforeAll(async () => {
    await model('al-a');
    await model('al-b');
  });

  it('PUT creates (201) with a fallback and the record shape; again updates (200); the seeded default stays default', async () => {
    const created = await putAlias('al-one', aliasBody('al-a', { fallbackModel: 'al-b', description: 'primary a', minHierarchyOrder: 0 }));
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(ALIAS_FIELDS);
    expect(created.body).toMatchObject({ alias: 'al-one', type: 'FAMILY', resolvedModel: 'al-a', fallbackModel: 'al-b', isDefault: false, minHierarchyOrder: 0 });
    const updated = await putAlias('al-one', aliasBody('al-b', { displayName: 'renamed' }));
    expect(updated.status).toBe(200);
    // PUT replaces: the omitted fallback is cleared
    expect(updated.body).toMatchObject({ displayName: 'renamed', resolvedModel: 'al-b', fallbackModel: null, description: null });
    expect(byAlias(await aliases(), 'default')?.isDefault).toBe(true);
  });

  it('isDefault true moves the default; unsetting it directly is 409; deleting it while others exist is 409', async () => {
    const moved = await alias('al-def', aliasBody('al-a', { isDefault: true }));
    expect(moved.isDefault).toBe(true);
    const list = await aliases();
    expect(list.filter((a) => a.isDefault).map((a) => a.alias)).toEqual(['al-def']);
    expect((await putAlias('al-def', aliasBody('al-a', { isDefault: false }))).status).toBe(409);
    expect((await t.client.delete(`${ADMIN}/model-aliases/al-def`, owner())).status).toBe(409);
    // give the default back to the seeded alias for the tests that follow
    expect((await alias('default', aliasBody(REF_MODEL, { isDefault: true, displayName: 'Default speech recognition' }))).isDefault).toBe(true);
    expect((await aliases()).filter((a) => a.isDefault).map((a) => a.alias)).toEqual(['default']);
  });

  it.each([
    ['an unknown resolvedModel', aliasBody('al-nobody'), 'resolvedModel'],
    ['an unknown fallbackModel', aliasBody('al-a', { fallbackModel: 'al-nobody' }), 'fallbackModel'],
    ['a fallback equal to the primary', aliasBody('al-a', { fallbackModel: 'al-a' }), 'fallbackModel'],
    ['an empty resolvedModel', aliasBody(''), 'resolvedModel'],
    ['a bad type', aliasBody('al-a', { type: 'LATEST' }), 'type'],
    ['a negative minHierarchyOrder', aliasBody('al-a', { minHierarchyOrder: -1 }), 'minHierarchyOrder'],
  ])('refuses %s (400)', async (_label, b, field) => {
    const res = await putAlias('al-bad', b);
    expect(res.status, res.text).toBe(400);
    expect(res.text).toContain(field);
    expect(byAlias(await aliases(), 'al-bad')).toBeUndefined();
  });

  it('a model of another family is not an ASR model (400)', async () => {
    const sv = await t.client.post(`${SV}/models`, {
      name: 'sv-not-asr', displayName: 'sv', supportedLocales: ['en-US'], grpcTarget: '127.0.0.1:50051', grpcTlsMode: 'PLAINTEXT',
    }, owner());
    expect(sv.status).toBe(201);
    expect((await putAlias('al-cross', aliasBody('sv-not-asr'))).status).toBe(400);
    expect((await putAlias('al-cross', aliasBody('al-a', { fallbackModel: 'sv-not-asr' }))).status).toBe(400);
  });

  it('CONCRETE aliases must resolve to the model of the same name', async () => {
    expect((await putAlias('al-a', { type: 'CONCRETE', displayName: 'c', resolvedModel: 'al-a', isDefault: false })).status).toBe(201);
    expect((await putAlias('al-b-concrete', { type: 'CONCRETE', displayName: 'c', resolvedModel: 'al-a', isDefault: false })).status).toBe(400);
    expect((await t.client.put(`${ADMIN}/model-aliases/al-a/resolve`, { resolvedModel: 'al-b' }, owner())).status).toBe(400);
  });

  it('resolve changes primary and fallback; 400 for unknown models or equal ones; 404 for an unknown alias', async () => {
    await alias('al-res', aliasBody('al-a'));
    const res = await t.client.put<Json>(`${ADMIN}/model-aliases/al-res/resolve`, { resolvedModel: 'al-b', fallbackModel: 'al-a' }, owner());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ alias: 'al-res', resolvedModel: 'al-b', fallbackModel: 'al-a' });
    expect((await t.client.put(`${ADMIN}/model-aliases/al-res/resolve`, { resolvedModel: 'al-nobody' }, owner())).status).toBe(400);
    expect((await t.client.put(`${ADMIN}/model-aliases/al-res/resolve`, { resolvedModel: 'al-a', fallbackModel: 'al-a' }, owner())).status).toBe(400);
    expect((await t.client.put(`${ADMIN}/model-aliases/al-nobody/resolve`, { resolvedModel: 'al-a' }, owner())).status).toBe(404);
    expect(byAlias(await aliases(), 'al-res')).toMatchObject({ resolvedModel: 'al-b', fallbackModel: 'al-a' });
  });

  it('deprecate stores dates and message (sunset not before deprecation: 400); undeprecate clears them', async () => {
    await alias('al-dep', aliasBody('al-a'));
    const dep = await t.client.put<Json>(`${ADMIN}/model-aliases/al-dep/deprecate`, { deprecationDate: '2024-01-01T00:00:00Z', sunsetDate: '2099-01-01T00:00:00Z', message: 'use default' }, owner());
    expect(dep.status, dep.text).toBe(200);
    expect(dep.body).toMatchObject({ deprecated: true, deprecationDate: '2024-01-01T00:00:00.000Z', sunsetDate: '2099-01-01T00:00:00.000Z', deprecationMessage: 'use default' });
    expect((await t.client.put(`${ADMIN}/model-aliases/al-dep/deprecate`, { deprecationDate: '2024-01-02T00:00:00Z', sunsetDate: '2024-01-01T00:00:00Z' }, owner())).status).toBe(400);
    const un = await t.client.put<Json>(`${ADMIN}/model-aliases/al-dep/undeprecate`, undefined, owner());
    expect(un.status).toBe(200);
    expect(un.body).toMatchObject({ deprecated: false, deprecationDate: null, sunsetDate: null, deprecationMessage: null });
    expect((await t.client.put(`${ADMIN}/model-aliases/al-nobody/undeprecate`, undefined, owner())).status).toBe(404);
  });

  it('DELETE answers 204, then 404', async () => {
    await alias('al-gone', aliasBody('al-a'));
    expect((await t.client.delete(`${ADMIN}/model-aliases/al-gone`, owner())).status).toBe(204);
    expect((await t.client.delete(`${ADMIN}/model-aliases/al-gone`, owner())).status).toBe(404);
  });
});

// --------------------------------------------------------------------------------------------------

describe('resolution and discovery (speech:models:read)', () => {
  beforeAll(async () => {
    await model('rs-avail');
    await model('rs-maint', 'MAINTENANCE');
    await model('rs-inactive', 'INACTIVE');
    await model('rs-dep', 'DEPRECATED');
    await alias('rs-fb', aliasBody('rs-maint', { fallbackModel: 'rs-avail' }));
    await alias('rs-fb-inactive', aliasBody('rs-inactive', { fallbackModel: 'rs-dep' }));
    await alias('rs-nofb', aliasBody('rs-maint'));
    await alias('rs-both-down', aliasBody('rs-maint', { fallbackModel: 'rs-inactive' }));
    await alias('rs-staff', aliasBody('rs-avail', { minHierarchyOrder: 50 }));
    await alias('rs-old', aliasBody('rs-avail'));
    await alias('rs-sunset', aliasBody('rs-avail'));
  });

  it('the tenant default resolves with the alias omitted (GraphQL); a named alias over REST has the resolution shape', async () => {
    const gql = await t.client.gql<{ asrModelAliasResolution: Json }>('{ asrModelAliasResolution { requestedAlias alias resolvedModel usedFallback } }', {}, viewer());
    expect(gql.errors).toEqual([]);
    expect(gql.data?.asrModelAliasResolution).toEqual({ requestedAlias: null, alias: 'default', resolvedModel: REF_MODEL, usedFallback: false });
    const res = await t.client.get<Json>(`${USER}/rs-old`, viewer());
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(RESOLUTION_FIELDS);
    expect(res.body).toEqual({ requestedAlias: 'rs-old', alias: 'rs-old', resolvedModel: 'rs-avail', usedFallback: false, deprecated: false, deprecationDate: null, sunsetDate: null, deprecationMessage: null });
    expect(res.headers.get('deprecation')).toBeNull();
  });

  it('a MAINTENANCE or INACTIVE primary hands over to a usable fallback (usedFallback true)', async () => {
    expect((await t.client.get<Json>(`${USER}/rs-fb`, viewer())).body).toMatchObject({ alias: 'rs-fb', resolvedModel: 'rs-avail', usedFallback: true });
    expect((await t.client.get<Json>(`${USER}/rs-fb-inactive`, viewer())).body).toMatchObject({ resolvedModel: 'rs-dep', usedFallback: true });
    await patch(`${ADMIN}/models/rs-maint/status`, { status: 'AVAILABLE' });
    expect((await t.client.get<Json>(`${USER}/rs-fb`, viewer())).body).toMatchObject({ resolvedModel: 'rs-maint', usedFallback: false });
    await patch(`${ADMIN}/models/rs-maint/status`, { status: 'MAINTENANCE' });
    expect((await t.client.get<Json>(`${USER}/rs-fb`, viewer())).body).toMatchObject({ resolvedModel: 'rs-avail', usedFallback: true });
  });

  it('without a usable fallback: 503 UNAVAILABLE', async () => {
    const res = await t.client.get<Json>(`${USER}/rs-nofb`, viewer());
    expect(res.status, res.text).toBe(503);
    expect(res.body.code).toBe('UNAVAILABLE');
    expect((await t.client.get(`${USER}/rs-both-down`, viewer())).status).toBe(503);
  });

  it('options list usable aliases with the default flag and locales, without gRPC details; hidden ones are 404', async () => {
    const res = await t.client.get<Json[]>(USER, viewer());
    expect(res.status, res.text).toBe(200);
    expect(byAlias(res.body, 'default')).toMatchObject({ alias: 'default', type: 'FAMILY', isDefault: true, deprecated: false, supportedLocales: ['en-US'] });
    expect(res.text).not.toContain('grpc');
    expect(res.text).not.toContain('127.0.0.1');
    expect(res.body.map((a) => a.alias)).not.toContain('rs-staff');
    expect((await t.client.get(`${USER}/rs-staff`, viewer())).status).toBe(404);
    expect((await t.client.get<Json[]>(USER, owner())).body.map((a) => a.alias)).toContain('rs-staff');
    expect((await t.client.get(`${USER}/rs-staff`, owner())).status).toBe(200);
  });

  it('a deprecated alias answers with Deprecation and Sunset headers; past its sunset 410 and absent from options', async () => {
    await t.client.put(`${ADMIN}/model-aliases/rs-old/deprecate`, { deprecationDate: '2024-03-01T00:00:00Z', sunsetDate: '2099-01-01T00:00:00Z', message: 'use default' }, owner());
    const res = await t.client.get<Json>(`${USER}/rs-old`, viewer());
    expect(res.status).toBe(200);
    expect(res.headers.get('deprecation')).toBe(`@${Date.parse('2024-03-01T00:00:00Z') / 1000}`);
    expect(res.headers.get('sunset')).toBe('Thu, 01 Jan 2099 00:00:00 GMT');
    expect(res.body).toMatchObject({ deprecated: true, deprecationMessage: 'use default' });
    await t.client.put(`${ADMIN}/model-aliases/rs-sunset/deprecate`, { deprecationDate: '2020-01-01T00:00:00Z', sunsetDate: '2021-01-01T00:00:00Z' }, owner());
    const gone = await t.client.get<Json>(`${USER}/rs-sunset`, viewer());
    expect(gone.status, gone.text).toBe(410);
    expect(gone.body.code).toBe('GONE');
    expect((await t.client.get<Json[]>(USER, viewer())).body.map((a) => a.alias)).not.toContain('rs-sunset');
  });

  it('an unknown alias → 404', async () => {
    expect((await t.client.get(`${USER}/rs-nobody`, viewer())).status).toBe(404);
  });
});

// --------------------------------------------------------------------------------------------------

describe('in-process resolution for streaming sessions', () => {
  let deps: { db: DbHandle['db']; txDb: DbHandle['txDb']; asrReferenceEngine: { target: string } };
  beforeAll(() => {
    deps = { db: dbh.db, txDb: dbh.txDb, asrReferenceEngine: { target: refEngine.address } };
  });

  it('an AVAILABLE primary whose engine is unreachable: the resolution offers the usable fallback, which answers', async () => {
    const live = await engine('asr-live');
    const port = await deadPort();
    await model('ip-dead', undefined, { grpcTarget: `127.0.0.1:${port}`, grpcDeadlineMs: 1000, grpcAuthority: null, grpcMetadata: null });
    await model('ip-live', undefined, { grpcTarget: live.address, grpcAuthority: 'asr.internal:443', grpcMetadata: { 'x-tenant-key': 'k1' } });
    await alias('ip-failover', aliasBody('ip-dead', { fallbackModel: 'ip-live' }));
    const r = await new AliasResolution(deps, 'asr').resolve({ tenantId: acme.id, alias: 'ip-failover', hierarchyOrder: 10 });
    expect(r.model.name).toBe('ip-dead');
    expect(r.usedFallback).toBe(false);
    expect(r.fallback?.name).toBe('ip-live');
    expect(r.alias.alias).toBe('ip-failover');

    const primary = createEngineClient('SpeechRecognition', engineClientConfig(r.model));
    await expect(primary.call('Health', {})).rejects.toThrow();
    primary.close();
    if (!r.fallback) throw new Error('no fallback');
    const cfg = engineClientConfig(r.fallback);
    expect(cfg).toEqual({ target: live.address, tlsMode: 'PLAINTEXT', authority: 'asr.internal:443', deadlineMs: 2500, maxInboundMessageBytes: 1_048_576, metadata: { 'x-tenant-key': 'k1' } });
    const fallback = createEngineClient('SpeechRecognition', cfg);
    try {
      expect(await fallback.call('Health', {})).toEqual({ status: 'SERVING', message: 'asr-live' });
    } finally {
      fallback.close();
    }
    expect(live.calls.map((c) => [c.path, c.authority, c.metadata['x-tenant-key']])).toEqual([[ASR_HEALTH_PATH, 'asr.internal:443', 'k1']]);
  });

  it('fallback is null when the fallback itself was chosen, when it is not usable, and when there is none', async () => {
    const viaFallback = await new AliasResolution(deps, 'asr').resolve({ tenantId: acme.id, alias: 'rs-fb', hierarchyOrder: 100 });
    expect([viaFallback.model.name, viaFallback.usedFallback, viaFallback.fallback]).toEqual(['rs-avail', true, null]);
    await model('ip-primary');
    await alias('ip-unusable-fb', aliasBody('ip-primary', { fallbackModel: 'rs-maint' }));
    const unusable = await new AliasResolution(deps, 'asr').resolve({ tenantId: acme.id, alias: 'ip-unusable-fb', hierarchyOrder: 100 });
    expect([unusable.model.name, unusable.usedFallback, unusable.fallback]).toEqual(['ip-primary', false, null]);
    const none = await new AliasResolution(deps, 'asr').resolve({ tenantId: acme.id, alias: null, hierarchyOrder: 100 });
    expect([none.requestedAlias, none.alias.alias, none.model.name, none.fallback]).toEqual([null, 'default', REF_MODEL, null]);
  });

  it('the errors sessions map to close codes: unknown or hidden 404, sunset 410, nothing usable 503', async () => {
    const resolve = (a: string, hierarchyOrder = 10) => new AliasResolution(deps, 'asr').resolve({ tenantId: acme.id, alias: a, hierarchyOrder });
    await expect(resolve('ip-nobody')).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    await expect(resolve('rs-staff')).rejects.toMatchObject({ extensions: { code: 'NOT_FOUND' } });
    await expect(resolve('rs-sunset')).rejects.toMatchObject({ extensions: { code: 'GONE' } });
    await expect(resolve('rs-nofb')).rejects.toMatchObject({ extensions: { code: 'UNAVAILABLE' } });
  });

  it('the first resolution of a never-seen tenant seeds it, so a fresh tenant resolves its default', async () => {
    const tenantId = randomUUID();
    const r = await new AliasResolution(deps, 'asr').resolve({ tenantId, alias: null, hierarchyOrder: 10 });
    expect([r.alias.alias, r.model.name, r.model.grpcTarget, r.fallback]).toEqual(['default', REF_MODEL, refEngine.address, null]);
  });

  it('seeding is ASR-only: a fresh tenant resolving another family gets no default from it', async () => {
    const tenantId = randomUUID();
    await expect(new AliasResolution(deps, 'sentver').resolve({ tenantId, alias: null, hierarchyOrder: 100 }))
      .rejects.toMatchObject({ extensions: { code: 'UNAVAILABLE' } });
    const rows = await dbh.sql`select count(*)::int as n from speaker_models.seeded_families where tenant_id = ${tenantId}`;
    expect(rows[0]?.n).toBe(0);
  });
});

// --------------------------------------------------------------------------------------------------

describe('scopes', () => {
  it('a viewer gets 403 on every administration path, and reaches discovery', async () => {
    const v = viewer();
    const calls = [
      t.client.get(`${ADMIN}/models`, v),
      register(body('viewer-made'), v),
      t.client.put(`${ADMIN}/models/${REF_MODEL}`, withoutName(body(REF_MODEL)), v),
      patch(`${ADMIN}/models/${REF_MODEL}/status`, { status: 'MAINTENANCE' }, v),
      t.client.delete(`${ADMIN}/models/${REF_MODEL}`, v),
      t.client.post(`${ADMIN}/models/${REF_MODEL}/test-connection`, undefined, v),
      t.client.get(`${ADMIN}/model-aliases`, v),
      putAlias('viewer-alias', aliasBody(REF_MODEL), v),
      t.client.put(`${ADMIN}/model-aliases/default/resolve`, { resolvedModel: REF_MODEL }, v),
      t.client.put(`${ADMIN}/model-aliases/default/deprecate`, {}, v),
      t.client.put(`${ADMIN}/model-aliases/default/undeprecate`, undefined, v),
      t.client.delete(`${ADMIN}/model-aliases/default`, v),
    ];
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(Array(calls.length).fill(403));
    expect(byName(await models(), REF_MODEL)?.status).toBe('AVAILABLE');
    expect(byAlias(await aliases(), 'default')).toMatchObject({ deprecated: false, isDefault: true });
    expect((await t.client.get(USER, v)).status).toBe(200);
    expect((await t.client.get(`${USER}/default`, v)).status).toBe(200);
  });

  it('speech:models:read alone reaches discovery only; speaker:models:read does not reach ASR discovery', async () => {
    const read = await acme.apiKeyOf(ownerBearer, ['speech:models:read']);
    expect((await t.client.get(USER, { apiKey: read })).status).toBe(200);
    expect((await t.client.get(`${USER}/default`, { apiKey: read })).status).toBe(200);
    expect((await t.client.get(`${ADMIN}/models`, { apiKey: read })).status).toBe(403);
    const speaker = await acme.apiKeyOf(ownerBearer, ['speaker:models:read']);
    expect((await t.client.get(USER, { apiKey: speaker })).status).toBe(403);
    expect((await t.client.get(`${USER}/default`, { apiKey: speaker })).status).toBe(403);
  });

  it('model writes need admin:asr-models:write, deletes admin:asr-models:delete', async () => {
    const write = await acme.apiKeyOf(ownerBearer, ['admin:asr-models:write']);
    expect((await t.client.get(`${ADMIN}/models`, { apiKey: write })).status).toBe(200);
    expect((await register(body('scoped-asr'), { apiKey: write })).status).toBe(201);
    expect((await t.client.post<Json>(`${ADMIN}/models/${REF_MODEL}/test-connection`, undefined, { apiKey: write })).body.success).toBe(true);
    expect((await t.client.delete(`${ADMIN}/models/scoped-asr`, { apiKey: write })).status).toBe(403);
    expect((await t.client.get(`${ADMIN}/model-aliases`, { apiKey: write })).status).toBe(403);
    const del = await acme.apiKeyOf(ownerBearer, ['admin:asr-models:delete']);
    expect((await t.client.get(`${ADMIN}/models`, { apiKey: del })).status).toBe(403);
    expect((await t.client.delete(`${ADMIN}/models/scoped-asr`, { apiKey: del })).status).toBe(204);
  });

  it('alias writes need admin:asr-model-aliases:write, deletes …:delete; sentver scopes do not reach ASR paths', async () => {
    const write = await acme.apiKeyOf(ownerBearer, ['admin:asr-model-aliases:write']);
    expect((await putAlias('scoped-alias', aliasBody(REF_MODEL), { apiKey: write })).status).toBe(201);
    expect((await t.client.delete(`${ADMIN}/model-aliases/scoped-alias`, { apiKey: write })).status).toBe(403);
    expect((await t.client.get(`${ADMIN}/models`, { apiKey: write })).status).toBe(403);
    const del = await acme.apiKeyOf(ownerBearer, ['admin:asr-model-aliases:delete']);
    expect((await putAlias('scoped-alias', aliasBody(REF_MODEL), { apiKey: del })).status).toBe(403);
    expect((await t.client.delete(`${ADMIN}/model-aliases/scoped-alias`, { apiKey: del })).status).toBe(204);
    const sv = await acme.apiKeyOf(ownerBearer, ['admin:sentver-models:write', 'admin:sentver-models:delete', 'admin:sentver-model-aliases:write', 'admin:sentver-model-aliases:delete']);
    expect((await t.client.get(`${ADMIN}/models`, { apiKey: sv })).status).toBe(403);
    expect((await t.client.get(`${ADMIN}/model-aliases`, { apiKey: sv })).status).toBe(403);
  });

  it('an identity-only key → 403 on discovery; no credential → 401', async () => {
    const idOnly = await acme.apiKeyOf(ownerBearer);
    for (const path of [USER, `${USER}/default`]) {
      expect((await t.client.get(path, { apiKey: idOnly })).status, path).toBe(403);
      expect((await t.client.get(path)).status, path).toBe(401);
    }
    expect((await t.client.get(`${ADMIN}/models`)).status).toBe(401);
    expect((await t.client.delete(`${ADMIN}/model-aliases/default`)).status).toBe(401);
  });
});

// --------------------------------------------------------------------------------------------------

describe('tenant isolation', () => {
  it("another tenant's admin sees only its own records, and none of acme's", async () => {
    const g = globexCaller();
    expect((await models(g)).map((m) => m.name)).not.toContain('asr-full');
    expect((await aliases(g)).map((a) => a.alias)).not.toContain('rs-fb');
    expect((await t.client.get(`${USER}/rs-fb`, g)).status).toBe(404);
    expect((await t.client.get<Json[]>(USER, g)).body.map((a) => a.alias)).not.toContain('rs-fb');
  });

  it('and cannot change, delete, test or alias them (404 / 400)', async () => {
    const g = globexCaller();
    expect((await t.client.put(`${ADMIN}/models/asr-full`, withoutName(body('asr-full', { displayName: 'hijack' })), g)).status).toBe(404);
    expect((await patch(`${ADMIN}/models/asr-full/status`, { status: 'INACTIVE' }, g)).status).toBe(404);
    expect((await t.client.delete(`${ADMIN}/models/asr-full`, g)).status).toBe(404);
    expect((await t.client.post(`${ADMIN}/models/asr-full/test-connection`, undefined, g)).status).toBe(404);
    expect((await t.client.put(`${ADMIN}/model-aliases/rs-fb/resolve`, { resolvedModel: 'rs-avail' }, g)).status).toBe(404);
    expect((await t.client.put(`${ADMIN}/model-aliases/rs-fb/deprecate`, {}, g)).status).toBe(404);
    expect((await t.client.delete(`${ADMIN}/model-aliases/rs-fb`, g)).status).toBe(404);
    expect((await putAlias('steal', aliasBody('asr-full'), g)).status).toBe(400);
    expect(byName(await models(), 'asr-full')).toMatchObject({ displayName: 'ASR asr-full', status: 'AVAILABLE' });
    expect(byAlias(await aliases(), 'rs-fb')).toMatchObject({ resolvedModel: 'rs-maint', fallbackModel: 'rs-avail', deprecated: false });
  });

  it('and may reuse the same names in their own tenant; their first alias becomes their default', async () => {
    const g = globexCaller();
    expect((await register(body('asr-full', { displayName: 'Globex copy' }), g)).status).toBe(201);
    const a = await putAlias('rs-fb', { type: 'FAMILY', displayName: 'mine', resolvedModel: 'asr-full' }, g);
    expect(a.status, a.text).toBe(201);
    expect(a.body.isDefault).toBe(true); // globex deleted its seeded default earlier
    expect(byName(await models(), 'asr-full')?.displayName).toBe('ASR asr-full');
    expect(byAlias(await aliases(), 'rs-fb')?.resolvedModel).toBe('rs-maint');
  });
});

// --------------------------------------------------------------------------------------------------

describe('GraphQL and the OpenAPI document', () => {
  const QUERY = `query ($id: ID!) { tenant(id: $id) {
    asrModels { name status grpcTarget }
    asrModelAliases { alias isDefault resolved { name status } fallback { name } }
  } }`;
  interface TenantData {
    asrModels: { name: string; status: string; grpcTarget: string }[];
    asrModelAliases: { alias: string; isDefault: boolean; resolved: { name: string; status: string }; fallback: { name: string } | null }[];
  }

  it('Tenant exposes the ASR models and aliases with their resolved and fallback model objects', async () => {
    const res = await t.client.gql<{ tenant: TenantData }>(QUERY, { id: acme.id }, owner());
    expect(res.errors).toEqual([]);
    const d = res.data?.tenant;
    expect(d?.asrModels.map((m) => m.name)).toEqual((await models()).map((m) => m.name));
    expect(d?.asrModels.find((m) => m.name === REF_MODEL)).toEqual({ name: REF_MODEL, status: 'AVAILABLE', grpcTarget: refEngine.address });
    expect(d?.asrModelAliases.find((a) => a.alias === 'rs-fb')).toEqual({ alias: 'rs-fb', isDefault: false, resolved: { name: 'rs-maint', status: 'MAINTENANCE' }, fallback: { name: 'rs-avail' } });
    expect(d?.asrModelAliases.find((a) => a.alias === 'default')).toMatchObject({ isDefault: true, resolved: { name: REF_MODEL }, fallback: null });
  });

  it("another tenant's admin cannot read acme's through tenant(id); a viewer lacks the admin scopes", async () => {
    const other = await t.client.gql<{ tenant: TenantData | null }>(QUERY, { id: acme.id }, globexCaller());
    expect(other.errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(other.data ?? {})).not.toContain('rs-maint');
    const v = await t.client.gql('{ me { tenant { asrModels { name } } } }', {}, viewer());
    expect(v.errors.map((e) => e.extensions?.code)).toContain('FORBIDDEN');
  });

  it('documents the ASR paths with their scopes', async () => {
    const doc = (await t.client.get<{ paths: Record<string, Record<string, { 'x-required-scope'?: string }>> }>('/api/v1/openapi.json')).body;
    const scope = (path: string, method: string) => doc.paths[`/api/v1${path}`]?.[method]?.['x-required-scope'];
    expect(scope('/speech-services/admin/asr/models', 'post')).toBe('admin:asr-models:write');
    expect(scope('/speech-services/admin/asr/models/{name}', 'delete')).toBe('admin:asr-models:delete');
    expect(scope('/speech-services/admin/asr/models/{name}/test-connection', 'post')).toBe('admin:asr-models:write');
    expect(scope('/speech-services/admin/asr/model-aliases/{alias}/resolve', 'put')).toBe('admin:asr-model-aliases:write');
    expect(scope('/speech-services/admin/asr/model-aliases/{alias}', 'delete')).toBe('admin:asr-model-aliases:delete');
    expect(scope('/speech-services/model-aliases', 'get')).toBe('speech:models:read');
    expect(scope('/speech-services/model-aliases/{alias}', 'get')).toBe('speech:models:read');
  });
});
