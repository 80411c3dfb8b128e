import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../support/http';
import { deadPort, grpc, makeTestPki, startEngineDouble, type EngineDouble } from '../support/engines';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createTenantWithIdp, type TenantWithIdp } from '../support/tenants';

type Json = Record<string, unknown>;

const SV = '/api/v1/speech-services/admin/sentence-verification';
const EM = '/api/v1/speaker-services/admin/speaker-embeddings';
const SV_USER = '/api/v1/speech-services/sentence-verification/model-aliases';
const EM_USER = '/api/v1/speaker-services/speaker-embeddings/model-aliases';

const SENTVER_FIELDS = [
  'name', 'displayName', 'description', 'status', 'statusMessage', 'deprecatedAt', 'inactiveAt', 'supportedLocales', 'maxExpectedTextLength',
  'grpcTarget', 'grpcTlsMode', 'grpcAuthority', 'grpcDeadlineMs', 'grpcMaxInboundMessageBytes', 'grpcMetadata', 'thresholdDefaults',
  'createdAt', 'updatedAt', 'retainedEnrollmentCount', 'retainedVerificationCount',
].sort();
/** AdminSpeakerEmbeddingModelResponse, exactly as the spec lists it */
const EMBEDDING_FIELDS = [
  'name', 'displayName', 'description', 'status', 'statusMessage', 'deprecatedAt', 'inactiveAt', 'supportedLocales', 'grpc',
  'createdAt', 'updatedAt', 'thresholdDefaults', 'activeVoicePrintCount', 'defaultVoicePrintSpeakerCount',
].sort();
const GRPC_FIELDS = ['target', 'tlsMode', 'authority', 'deadlineMs', 'maxInboundMessageBytes', 'metadata'].sort();
const ALIAS_FIELDS = [
  'alias', 'type', 'displayName', 'description', 'resolvedModel', 'isDefault', 'deprecated', 'deprecationDate', 'sunsetDate',
  'deprecationMessage', 'minHierarchyOrder', 'createdAt', 'updatedAt',
];
const SENTVER_ALIAS_FIELDS = [...ALIAS_FIELDS, 'fallbackModel'].sort();
const EMBEDDING_ALIAS_FIELDS = [...ALIAS_FIELDS].sort();
const RESOLUTION_FIELDS = ['requestedAlias', 'alias', 'resolvedModel', 'usedFallback', 'deprecated', 'deprecationDate', 'sunsetDate', 'deprecationMessage'].sort();

const THRESHOLDS = {
  strictAcceptThreshold: 0.9, strictReviewThreshold: 0.8, balancedAcceptThreshold: 0.8,
  balancedReviewThreshold: 0.7, lenientAcceptThreshold: 0.7, lenientReviewThreshold: 0.5,
};
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let t: TestPlatform;
let acme: TenantWithIdp;
let globex: TenantWithIdp;
let ownerBearer: string;
let ownerKey: string; // tenant-admin of acme (hierarchy 100), every scope
let memberBearer: string; // member of acme (hierarchy 50)
let globexKey: string; // tenant-admin of globex
let adminScopes: string[];
const engines: EngineDouble[] = [];

beforeAll(async () => {
  t = await startTestPlatform();
  acme = await createTenantWithIdp(t, [{ username: 'owner', password: 'pw-owner' }, { username: 'mia', password: 'pw-mia' }]);
  globex = await createTenantWithIdp(t, [{ username: 'gadmin', password: 'pw-g' }]);
  adminScopes = (await t.client.gql<{ roles: { slug: string; scopes: string[] }[] }>('{ roles { slug scopes } }', {}, { apiKey: t.rootKey }))
    .data?.roles.find((r) => r.slug === 'tenant-admin')?.scopes ?? [];
  ownerBearer = (await acme.login('owner', 'pw-owner')).access_token;
  ownerKey = await acme.apiKeyOf(ownerBearer, adminScopes);
  memberBearer = (await acme.login('mia', 'pw-mia')).access_token;
  globexKey = await globex.apiKeyOf((await globex.login('gadmin', 'pw-g')).access_token, adminScopes);
});
afterAll(async () => {
  for (const e of engines) await e.stop();
  await acme?.close();
  await globex?.close();
  await t?.close();
});

const owner = (): Caller => ({ apiKey: ownerKey });
const member = (): Caller => ({ bearer: memberBearer });
const patch = (path: string, body: unknown, caller: Caller = owner()) => t.client.request<Json>('PATCH', path, { ...caller, body });

async function engine(name: string, credentials?: grpc.ServerCredentials): Promise<EngineDouble> {
  const e = await startEngineDouble({ name, credentials });
  engines.push(e);
  return e;
}

/** A full sentver model request (every optional field set) */
function svBody(name: string, extra: Json = {}): Json {
  return {
    name, displayName: `Sentver ${name}`, description: 'sentence verification', supportedLocales: ['en-US', 'de-DE'], maxExpectedTextLength: 120,
    grpcTarget: '127.0.0.1:50051', grpcTlsMode: 'PLAINTEXT', grpcAuthority: 'engine.local', grpcDeadlineMs: 2500,
    grpcMaxInboundMessageBytes: 1_048_576, grpcMetadata: { 'x-team': 'alpha' }, thresholdDefaults: THRESHOLDS, ...extra,
  };
}
function withoutName(b: Json): Json {
  const { name: _name, ...rest } = b;
  return rest;
}
function emBody(name: string, extra: Json = {}, grpcExtra: Json = {}): Json {
  return {
    name, displayName: `Embedding ${name}`, description: 'speaker embedding', supportedLocales: ['en-US'],
    grpc: { target: '127.0.0.1:50052', tlsMode: 'PLAINTEXT', authority: 'embed.local', deadlineMs: 3000, maxInboundMessageBytes: 2_097_152, metadata: { 'x-team': 'beta' }, ...grpcExtra },
    thresholdDefaults: THRESHOLDS, ...extra,
  };
}

const registerSv = (body: Json, caller: Caller = owner()) => t.client.post<Json>(`${SV}/models`, body, caller);
const registerEm = (body: Json, caller: Caller = owner()) => t.client.post<Json>(`${EM}/models`, body, caller);
async function svModel(name: string, status?: string, extra: Json = {}): Promise<Json> {
  const res = await registerSv(svBody(name, extra));
  if (res.status !== 201) throw new Error(`register ${name}: ${res.status} ${res.text}`);
  if (!status || status === 'INACTIVE') return res.body;
  const s = await patch(`${SV}/models/${name}/status`, { status });
  if (s.status !== 200) throw new Error(`status ${name}: ${s.status} ${s.text}`);
  return s.body;
}
async function emModel(name: string, status = 'AVAILABLE', grpcExtra: Json = {}): Promise<Json> {
  const res = await registerEm(emBody(name, { status }, grpcExtra));
  if (res.status !== 201) throw new Error(`register ${name}: ${res.status} ${res.text}`);
  return res.body;
}
const putSvAlias = (alias: string, body: Json, caller: Caller = owner()) => t.client.put<Json>(`${SV}/model-aliases/${alias}`, body, caller);
const putEmAlias = (alias: string, body: Json, caller: Caller = owner()) => t.client.put<Json>(`${EM}/model-aliases/${alias}`, body, caller);
const aliasBody = (resolvedModel: string, extra: Json = {}): Json => ({ type: 'FAMILY', displayName: `Alias to ${resolvedModel}`, resolvedModel, ...extra });
async function svAlias(alias: string, body: Json): Promise<Json> {
  const res = await putSvAlias(alias, body);
  if (res.status !== 200 && res.status !== 201) throw new Error(`alias ${alias}: ${res.status} ${res.text}`);
  return res.body;
}
async function emAlias(alias: string, body: Json): Promise<Json> {
  const res = await putEmAlias(alias, body);
  if (res.status !== 200 && res.status !== 201) throw new Error(`alias ${alias}: ${res.status} ${res.text}`);
  return res.body;
}
const listSv = async (caller: Caller = owner()) => (await t.client.get<Json[]>(`${SV}/models`, caller)).body;
const listEm = async (caller: Caller = owner()) => (await t.client.get<Json[]>(`${EM}/models`, caller)).body;
const svAliases = async (caller: Caller = owner()) => (await t.client.get<Json[]>(`${SV}/model-aliases`, caller)).body;
const emAliases = async (caller: Caller = owner()) => (await t.client.get<Json[]>(`${EM}/model-aliases`, caller)).body;
const byName = (rows: Json[], name: string) => rows.find((r) => r.name === name);
const byAlias = (rows: Json[], alias: string) => rows.find((r) => r.alias === alias);

// --------------------------------------------------------------------------------------------------

describe('sentence-verification models', () => {
  it('register answers 201 with the whole record; a new model starts INACTIVE; counts are 0', async () => {
    const res = await registerSv(svBody('sv-full'));
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(SENTVER_FIELDS);
    const { inactiveAt: _i, createdAt, updatedAt, ...rest } = res.body;
    expect(rest).toEqual({
      name: 'sv-full', displayName: 'Sentver sv-full', description: 'sentence verification', status: 'INACTIVE', statusMessage: null,
      deprecatedAt: null, supportedLocales: ['en-US', 'de-DE'], maxExpectedTextLength: 120, grpcTarget: '127.0.0.1:50051',
      grpcTlsMode: 'PLAINTEXT', grpcAuthority: 'engine.local', grpcDeadlineMs: 2500, grpcMaxInboundMessageBytes: 1_048_576,
      grpcMetadata: { 'x-team': 'alpha' }, thresholdDefaults: THRESHOLDS, retainedEnrollmentCount: 0, retainedVerificationCount: 0,
    });
    expect(createdAt).toMatch(ISO);
    expect(updatedAt).toMatch(ISO);
  });

  it('register with only the required fields: optional fields null, grpcDeadlineMs defaults to 5000', async () => {
    const res = await registerSv({ name: 'sv-min', displayName: 'Min', supportedLocales: ['fr'], grpcTarget: 'dns:///engine.internal:443', grpcTlsMode: 'SYSTEM_TRUST' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      status: 'INACTIVE', description: null, maxExpectedTextLength: null, grpcAuthority: null, grpcDeadlineMs: 5000,
      grpcMaxInboundMessageBytes: null, grpcMetadata: null, thresholdDefaults: null,
    });
  });

  it('a model that is INACTIVE has inactiveAt recorded, whether INACTIVE from registration or set by PATCH', async () => {
    const reg = await registerSv(svBody('sv-inactive-at'));
    expect(reg.status).toBe(201);
    // the same state reached through PATCH records the time; registration should not leave the record inconsistent
    const other = await svModel('sv-inactive-at-2', 'AVAILABLE');
    expect(other.inactiveAt).toBeNull();
    const patched = await patch(`${SV}/models/sv-inactive-at-2/status`, { status: 'INACTIVE' });
    expect(patched.body.inactiveAt).toMatch(ISO);
    // re-asserting INACTIVE (e.g. to change the message) must not leave it without a time either
    const reasserted = await patch(`${SV}/models/sv-inactive-at/status`, { status: 'INACTIVE', statusMessage: 'parked' });
    expect(reasserted.status).toBe(200);
    expect(String(reg.body.inactiveAt), 'a sentver model registered INACTIVE has inactiveAt null').toMatch(ISO);
    expect(String(reasserted.body.inactiveAt), 'still null after PATCH INACTIVE').toMatch(ISO);
  });

  it('409 when the name is taken in the tenant', async () => {
    await svModel('sv-taken');
    const res = await registerSv(svBody('sv-taken', { displayName: 'again' }));
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect(byName(await listSv(), 'sv-taken')?.displayName).toBe('Sentver sv-taken');
  });

  it.each([
    ['empty supportedLocales', { supportedLocales: [] }, 'supportedLocales'],
    ['a supportedLocales entry that is not BCP-47', { supportedLocales: ['en-US', 'en_US'] }, 'supportedLocales'],
    ['another invalid BCP-47 tag', { supportedLocales: ['123'] }, 'supportedLocales'],
    ['a threshold above 1', { thresholdDefaults: { ...THRESHOLDS, strictAcceptThreshold: 1.01 } }, 'thresholdDefaults'],
    ['a threshold below 0', { thresholdDefaults: { ...THRESHOLDS, lenientReviewThreshold: -0.1 } }, 'thresholdDefaults'],
    ['a review threshold above its accept threshold', { thresholdDefaults: { ...THRESHOLDS, balancedReviewThreshold: 0.85 } }, 'balancedReviewThreshold'],
    ['grpcDeadlineMs 0', { grpcDeadlineMs: 0 }, 'grpcDeadlineMs'],
    ['grpcDeadlineMs negative', { grpcDeadlineMs: -5 }, 'grpcDeadlineMs'],
    ['target "nope"', { grpcTarget: 'nope' }, 'grpcTarget'],
    ['target "dns://x"', { grpcTarget: 'dns://x' }, 'grpcTarget'],
    ['target "h:1,,h:2"', { grpcTarget: 'h:1,,h:2' }, 'grpcTarget'],
    ['a name with capitals and spaces', { name: 'Bad Name' }, 'name'],
    ['a name starting with a hyphen', { name: '-bad' }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a reserved metadata key', { grpcMetadata: { 'grpc-timeout': '1' } }, 'grpcMetadata'],
    ['MTLS without deployment client certificate', { grpcTlsMode: 'MTLS' }, 'grpcTlsMode'],
  ])('register refuses %s with 400 and saves nothing', async (_label, extra, field) => {
    const name = `sv-bad-${Math.random().toString(36).slice(2, 8)}`;
    const res = await registerSv(svBody(name, extra));
    expect(res.status, res.text).toBe(400);
    expect(res.text).toContain(field);
    expect(byName(await listSv(), name)).toBeUndefined();
  });

  it('register refuses a missing required field (400)', async () => {
    const { supportedLocales: _l, ...body } = svBody('sv-missing');
    expect((await registerSv(body)).status).toBe(400);
    const { grpcTarget: _g, ...body2 } = svBody('sv-missing');
    expect((await registerSv(body2)).status).toBe(400);
  });

  it('register does not accept a status (new models start INACTIVE): 400', async () => {
    const res = await registerSv(svBody('sv-with-status', { status: 'AVAILABLE' }));
    expect(res.status).toBe(400);
  });

  it('GET lists the models of the tenant, sorted by name, with the record shape', async () => {
    const res = await t.client.get<Json[]>(`${SV}/models`, owner());
    expect(res.status).toBe(200);
    const names = res.body.map((m) => m.name as string);
    expect(names).toContain('sv-full');
    expect(names).toEqual([...names].sort());
    for (const m of res.body) expect(Object.keys(m).sort()).toEqual(SENTVER_FIELDS);
  });

  it('PUT replaces the configuration and clears every omitted nullable field; status and createdAt stay', async () => {
    const before = await svModel('sv-put', 'AVAILABLE');
    await new Promise((r) => setTimeout(r, 5));
    const res = await t.client.put<Json>(`${SV}/models/sv-put`, {
      displayName: 'Replaced', supportedLocales: ['es-ES'], grpcTarget: 'static:///10.0.0.1:9000,10.0.0.2:9000', grpcTlsMode: 'PLAINTEXT', grpcDeadlineMs: 900,
    }, owner());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'sv-put', displayName: 'Replaced', description: null, supportedLocales: ['es-ES'], maxExpectedTextLength: null,
      grpcTarget: 'static:///10.0.0.1:9000,10.0.0.2:9000', grpcAuthority: null, grpcDeadlineMs: 900, grpcMaxInboundMessageBytes: null,
      grpcMetadata: null, thresholdDefaults: null, status: 'AVAILABLE', createdAt: before.createdAt,
    });
    expect(Date.parse(res.body.updatedAt as string)).toBeGreaterThan(Date.parse(before.updatedAt as string));
    expect(byName(await listSv(), 'sv-put')).toEqual(res.body);
  });

  it('PUT requires grpcDeadlineMs (required in the update) and validates like register', async () => {
    await svModel('sv-put-val');
    const base = withoutName(svBody('sv-put-val'));
    const { grpcDeadlineMs: _d, ...noDeadline } = base;
    expect((await t.client.put(`${SV}/models/sv-put-val`, noDeadline, owner())).status).toBe(400);
    expect((await t.client.put(`${SV}/models/sv-put-val`, { ...base, supportedLocales: [] }, owner())).status).toBe(400);
    expect((await t.client.put(`${SV}/models/sv-put-val`, { ...base, grpcDeadlineMs: 0 }, owner())).status).toBe(400);
    expect((await t.client.put(`${SV}/models/sv-put-val`, { ...base, grpcTarget: 'dns://x' }, owner())).status).toBe(400);
    expect((await t.client.put(`${SV}/models/sv-put-val`, { ...base, thresholdDefaults: { strictAcceptThreshold: 2 } }, owner())).status).toBe(400);
  });

  it.each([
    ['name', { name: 'sv-renamed' }],
    ['status', { status: 'AVAILABLE' }],
  ])('PUT with %s in the body is refused (400) and nothing changes', async (_f, extra) => {
    const name = `sv-immut-${String(_f)}`;
    await svModel(name);
    const before = byName(await listSv(), name);
    const res = await t.client.put<Json>(`${SV}/models/${name}`, { ...withoutName(svBody(name)), displayName: 'Changed', ...extra }, owner());
    expect(res.status, res.text).toBe(400);
    expect(byName(await listSv(), name)).toEqual(before);
    expect(byName(await listSv(), 'sv-renamed')).toBeUndefined();
  });

  it('PUT of an unknown model answers 404', async () => {
    const res = await t.client.put<Json>(`${SV}/models/sv-nobody`, withoutName(svBody('x')), owner());
    expect(res.status).toBe(404);
  });

  it('PATCH status: 200; DEPRECATED records deprecatedAt (kept while DEPRECATED), INACTIVE records inactiveAt, leaving clears them', async () => {
    await svModel('sv-status');
    const avail = await patch(`${SV}/models/sv-status/status`, { status: 'AVAILABLE', statusMessage: 'ready' });
    expect(avail.status, avail.text).toBe(200);
    expect(avail.body).toMatchObject({ status: 'AVAILABLE', statusMessage: 'ready', deprecatedAt: null, inactiveAt: null });
    const dep = await patch(`${SV}/models/sv-status/status`, { status: 'DEPRECATED', statusMessage: 'use v2' });
    expect(dep.body).toMatchObject({ status: 'DEPRECATED', statusMessage: 'use v2', inactiveAt: null });
    expect(dep.body.deprecatedAt).toMatch(ISO);
    await new Promise((r) => setTimeout(r, 5));
    const again = await patch(`${SV}/models/sv-status/status`, { status: 'DEPRECATED' });
    expect(again.body.deprecatedAt).toBe(dep.body.deprecatedAt);
    expect(again.body.statusMessage).toBeNull();
    const maint = await patch(`${SV}/models/sv-status/status`, { status: 'MAINTENANCE' });
    expect(maint.body).toMatchObject({ status: 'MAINTENANCE', deprecatedAt: null, inactiveAt: null });
    const inactive = await patch(`${SV}/models/sv-status/status`, { status: 'INACTIVE' });
    expect(inactive.body.status).toBe('INACTIVE');
    expect(inactive.body.inactiveAt).toMatch(ISO);
    // the configuration is untouched by status changes
    expect(inactive.body).toMatchObject({ displayName: 'Sentver sv-status', grpcDeadlineMs: 2500, grpcMetadata: { 'x-team': 'alpha' } });
  });

  it('PATCH status: an invalid status (400), configuration fields in the body (400), an unknown model (404)', async () => {
    await svModel('sv-status-bad');
    expect((await patch(`${SV}/models/sv-status-bad/status`, { status: 'BROKEN' })).status).toBe(400);
    expect((await patch(`${SV}/models/sv-status-bad/status`, {})).status).toBe(400);
    expect((await patch(`${SV}/models/sv-status-bad/status`, { status: 'AVAILABLE', displayName: 'x' })).status).toBe(400);
    expect(byName(await listSv(), 'sv-status-bad')?.status).toBe('INACTIVE');
    expect((await patch(`${SV}/models/sv-nobody/status`, { status: 'AVAILABLE' })).status).toBe(404);
  });

  it('DELETE answers 204, then 404', async () => {
    await svModel('sv-del');
    expect((await t.client.delete(`${SV}/models/sv-del`, owner())).status).toBe(204);
    expect(byName(await listSv(), 'sv-del')).toBeUndefined();
    expect((await t.client.delete(`${SV}/models/sv-del`, owner())).status).toBe(404);
  });

  it('DELETE is refused (409) while an alias resolves to the model or names it as fallback', async () => {
    await svModel('sv-ref-a', 'AVAILABLE');
    await svModel('sv-ref-b', 'AVAILABLE');
    await svAlias('sv-refs', aliasBody('sv-ref-a', { fallbackModel: 'sv-ref-b', isDefault: false }));
    const a = await t.client.delete<Json>(`${SV}/models/sv-ref-a`, owner());
    expect(a.status).toBe(409);
    expect(String(a.body.detail)).toContain('sv-refs');
    expect((await t.client.delete(`${SV}/models/sv-ref-b`, owner())).status).toBe(409);
    expect(byName(await listSv(), 'sv-ref-a')).toBeDefined();
    expect(byName(await listSv(), 'sv-ref-b')).toBeDefined();
    expect((await t.client.delete(`${SV}/model-aliases/sv-refs`, owner())).status).toBe(204);
    expect((await t.client.delete(`${SV}/models/sv-ref-b`, owner())).status).toBe(204);
    expect((await t.client.delete(`${SV}/models/sv-ref-a`, owner())).status).toBe(204);
  });
});

// --------------------------------------------------------------------------------------------------

describe('speaker-embedding models', () => {
  it('register answers 201 with exactly AdminSpeakerEmbeddingModelResponse; default status AVAILABLE; voice-print counts 0', async () => {
    const res = await registerEm(emBody('em-full'));
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(EMBEDDING_FIELDS);
    expect(Object.keys(res.body.grpc as Json).sort()).toEqual(GRPC_FIELDS);
    const { createdAt, updatedAt, ...rest } = res.body;
    expect(rest).toEqual({
      name: 'em-full', displayName: 'Embedding em-full', description: 'speaker embedding', status: 'AVAILABLE', statusMessage: null,
      deprecatedAt: null, inactiveAt: null, supportedLocales: ['en-US'],
      grpc: { target: '127.0.0.1:50052', tlsMode: 'PLAINTEXT', authority: 'embed.local', deadlineMs: 3000, maxInboundMessageBytes: 2_097_152, metadata: { 'x-team': 'beta' } },
      thresholdDefaults: THRESHOLDS, activeVoicePrintCount: 0, defaultVoicePrintSpeakerCount: 0,
    });
    expect(createdAt).toMatch(ISO);
    expect(updatedAt).toMatch(ISO);
  });

  it.each([
    ['MAINTENANCE', {}],
    ['INACTIVE', { inactiveAt: true }],
    ['DEPRECATED', { deprecatedAt: true }],
  ])('register takes an initial status %s (INACTIVE records inactiveAt, DEPRECATED deprecatedAt)', async (status, stamps: { inactiveAt?: boolean; deprecatedAt?: boolean }) => {
    const res = await registerEm(emBody(`em-init-${status.toLowerCase()}`, { status }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe(status);
    if (stamps.inactiveAt) expect(res.body.inactiveAt).toMatch(ISO); else expect(res.body.inactiveAt).toBeNull();
    if (stamps.deprecatedAt) expect(res.body.deprecatedAt).toMatch(ISO); else expect(res.body.deprecatedAt).toBeNull();
  });

  it('register with only the required fields (supportedLocales optional → null)', async () => {
    const res = await registerEm({ name: 'em-min', displayName: 'Min', grpc: { target: '127.0.0.1:1', tlsMode: 'PLAINTEXT', deadlineMs: 100 } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ description: null, supportedLocales: null, thresholdDefaults: null, status: 'AVAILABLE' });
    expect(res.body.grpc).toEqual({ target: '127.0.0.1:1', tlsMode: 'PLAINTEXT', authority: null, deadlineMs: 100, maxInboundMessageBytes: null, metadata: null });
  });

  it('409 when the name is taken', async () => {
    await emModel('em-taken');
    expect((await registerEm(emBody('em-taken'))).status).toBe(409);
  });

  it.each([
    
    ['a non-BCP-47 locale', { supportedLocales: ['en_US'] }, {}],
    ['a threshold above 1', { thresholdDefaults: { strictAcceptThreshold: 1.5 } }, {}],
    ['a review threshold above accept', { thresholdDefaults: { lenientAcceptThreshold: 0.4, lenientReviewThreshold: 0.6 } }, {}],
    ['deadlineMs 0', {}, { deadlineMs: 0 }],
    ['target "nope"', {}, { target: 'nope' }],
    ['target "dns://x"', {}, { target: 'dns://x' }],
    ['target "h:1,,h:2"', {}, { target: 'h:1,,h:2' }],
    ['a bad name', { name: 'Not_Valid!' }, {}],
    ['an unknown status', { status: 'SLEEPING' }, {}],
  ])('register refuses %s with 400', async (_l, extra: Json, grpcExtra: Json) => {
    const name = `em-bad-${Math.random().toString(36).slice(2, 8)}`;
    const res = await registerEm(emBody(name, extra, grpcExtra));
    expect(res.status, res.text).toBe(400);
    expect(byName(await listEm(), name)).toBeUndefined();
  });

  it('GET lists the models with the exact response shape', async () => {
    const res = await t.client.get<Json[]>(`${EM}/models`, owner());
    expect(res.status).toBe(200);
    expect(res.body.map((m) => m.name)).toContain('em-full');
    for (const m of res.body) expect(Object.keys(m).sort()).toEqual(EMBEDDING_FIELDS);
  });

  it('PUT replaces the configuration and clears omitted nullable fields (also inside grpc); status is kept', async () => {
    const before = await emModel('em-put', 'DEPRECATED');
    const res = await t.client.put<Json>(`${EM}/models/em-put`, { displayName: 'Replaced', grpc: { target: 'static:///127.0.0.1:7001,127.0.0.1:7002', tlsMode: 'PLAINTEXT', deadlineMs: 700 } }, owner());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'em-put', displayName: 'Replaced', description: null, supportedLocales: null, thresholdDefaults: null, status: 'DEPRECATED',
      deprecatedAt: before.deprecatedAt, createdAt: before.createdAt,
      grpc: { target: 'static:///127.0.0.1:7001,127.0.0.1:7002', tlsMode: 'PLAINTEXT', authority: null, deadlineMs: 700, maxInboundMessageBytes: null, metadata: null },
    });
    expect(byName(await listEm(), 'em-put')).toEqual(res.body);
  });

  it.each([
    ['name', { name: 'em-renamed' }],
    ['status', { status: 'INACTIVE' }],
  ])('PUT with %s in the body is refused (400) and nothing changes', async (f, extra) => {
    const name = `em-immut-${f}`;
    await emModel(name);
    const before = byName(await listEm(), name);
    const res = await t.client.put<Json>(`${EM}/models/${name}`, { ...withoutName(emBody(name)), displayName: 'Changed', ...extra }, owner());
    expect(res.status, res.text).toBe(400);
    expect(byName(await listEm(), name)).toEqual(before);
  });

  it('PUT validates (deadlineMs required and positive, target, locales) and answers 404 for an unknown model', async () => {
    await emModel('em-put-val');
    const base = withoutName(emBody('em-put-val'));
    expect((await t.client.put(`${EM}/models/em-put-val`, { ...base, grpc: { target: '127.0.0.1:1', tlsMode: 'PLAINTEXT' } }, owner())).status).toBe(400);
    expect((await t.client.put(`${EM}/models/em-put-val`, { ...base, grpc: { target: '127.0.0.1:1', tlsMode: 'PLAINTEXT', deadlineMs: -1 } }, owner())).status).toBe(400);
    expect((await t.client.put(`${EM}/models/em-put-val`, { ...base, grpc: { target: 'nope', tlsMode: 'PLAINTEXT', deadlineMs: 5 } }, owner())).status).toBe(400);
    expect((await t.client.put(`${EM}/models/em-put-val`, { ...base, supportedLocales: [] }, owner())).status).toBe(200);
    expect((await t.client.put(`${EM}/models/em-nobody`, base, owner())).status).toBe(404);
  });

  it('PATCH status: INACTIVE records inactiveAt, DEPRECATED deprecatedAt; invalid 400; unknown 404', async () => {
    await emModel('em-status');
    const inactive = await patch(`${EM}/models/em-status/status`, { status: 'INACTIVE', statusMessage: 'retired' });
    expect(inactive.status, inactive.text).toBe(200);
    expect(Object.keys(inactive.body).sort()).toEqual(EMBEDDING_FIELDS);
    expect(inactive.body).toMatchObject({ status: 'INACTIVE', statusMessage: 'retired', deprecatedAt: null });
    expect(inactive.body.inactiveAt).toMatch(ISO);
    const again = await patch(`${EM}/models/em-status/status`, { status: 'INACTIVE' });
    expect(again.body.inactiveAt).toBe(inactive.body.inactiveAt);
    const dep = await patch(`${EM}/models/em-status/status`, { status: 'DEPRECATED' });
    expect(dep.body).toMatchObject({ status: 'DEPRECATED', inactiveAt: null });
    expect(dep.body.deprecatedAt).toMatch(ISO);
    expect((await patch(`${EM}/models/em-status/status`, { status: 'GONE' })).status).toBe(400);
    expect((await patch(`${EM}/models/em-nobody/status`, { status: 'AVAILABLE' })).status).toBe(404);
  });

  it('DELETE: 204, then 404; 409 while an alias references the model', async () => {
    await emModel('em-del');
    expect((await t.client.delete(`${EM}/models/em-del`, owner())).status).toBe(204);
    expect((await t.client.delete(`${EM}/models/em-del`, owner())).status).toBe(404);
    await emModel('em-del-ref');
    await emAlias('em-del-ref-alias', aliasBody('em-del-ref', { isDefault: false }));
    expect((await t.client.delete(`${EM}/models/em-del-ref`, owner())).status).toBe(409);
    expect(byName(await listEm(), 'em-del-ref')).toBeDefined();
  });
});

// --------------------------------------------------------------------------------------------------

describe('aliases', () => {
  it('sentver: the first alias becomes default; PUT again updates; another isDefault true moves the default', async () => {
    await svModel('al-a', 'AVAILABLE');
    await svModel('al-b', 'AVAILABLE');
    expect((await svAliases()).filter((a) => a.isDefault)).toHaveLength(0);
    const first = await putSvAlias('al-first', aliasBody('al-a', { description: 'first', minHierarchyOrder: 10 }));
    expect(first.status, first.text).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual(SENTVER_ALIAS_FIELDS);
    expect(first.body).toMatchObject({
      alias: 'al-first', type: 'FAMILY', description: 'first', resolvedModel: 'al-a', fallbackModel: null, isDefault: true,
      deprecated: false, deprecationDate: null, sunsetDate: null, deprecationMessage: null, minHierarchyOrder: 10,
    });
    const updated = await putSvAlias('al-first', aliasBody('al-b', { displayName: 'Renamed', type: 'PINNED', fallbackModel: 'al-a' }));
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      alias: 'al-first', type: 'PINNED', displayName: 'Renamed', description: null, resolvedModel: 'al-b', fallbackModel: 'al-a', isDefault: true,
      minHierarchyOrder: null, createdAt: first.body.createdAt,
    });
    const second = await putSvAlias('al-second', aliasBody('al-a'));
    expect(second.body.isDefault).toBe(false);
    const moved = await putSvAlias('al-second', aliasBody('al-a', { isDefault: true }));
    expect(moved.body.isDefault).toBe(true);
    const list = await svAliases();
    expect(byAlias(list, 'al-first')?.isDefault).toBe(false);
    expect(list.filter((a) => a.isDefault).map((a) => a.alias)).toEqual(['al-second']);
    for (const a of list) expect(Object.keys(a).sort()).toEqual(SENTVER_ALIAS_FIELDS);
  });

  it('embedding: the first alias becomes default, isDefault moves it, the record shape has no fallbackModel', async () => {
    await emModel('eal-a');
    await emModel('eal-b');
    const first = await putEmAlias('eal-first', aliasBody('eal-a'));
    expect(first.status, first.text).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual(EMBEDDING_ALIAS_FIELDS);
    // em-del-ref-alias (isDefault false) exists already, so "first" here means the first default
    expect(first.body.isDefault).toBe(true);
    const second = await putEmAlias('eal-second', aliasBody('eal-b', { isDefault: true }));
    expect(second.body.isDefault).toBe(true);
    const list = await emAliases();
    expect(list.filter((a) => a.isDefault).map((a) => a.alias)).toEqual(['eal-second']);
  });

  it('embedding: fallbackModel is not part of the embedding alias request (400)', async () => {
    const res = await putEmAlias('eal-fb', aliasBody('eal-a', { fallbackModel: 'eal-b' }));
    expect(res.status).toBe(400);
    expect(byAlias(await emAliases(), 'eal-fb')).toBeUndefined();
  });

  it('embedding: deprecation fields in the PUT request are stored', async () => {
    const res = await putEmAlias('eal-dep', aliasBody('eal-a', { deprecated: true, deprecationDate: '2020-01-01T00:00:00Z', sunsetDate: '2099-01-01T00:00:00Z', deprecationMessage: 'move' }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ deprecated: true, deprecationDate: '2020-01-01T00:00:00.000Z', sunsetDate: '2099-01-01T00:00:00.000Z', deprecationMessage: 'move' });
  });

  it.each(['sentver', 'embedding'] as const)('%s: 20 concurrent PUTs of different aliases, all isDefault true, leave exactly one default', async (family) => {
    const put = family === 'sentver' ? putSvAlias : putEmAlias;
    const model = family === 'sentver' ? 'al-a' : 'eal-a';
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => put(`race-${i}`, aliasBody(model, { isDefault: true }))));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const list = family === 'sentver' ? await svAliases() : await emAliases();
    const defaults = list.filter((a) => a.isDefault);
    expect(defaults).toHaveLength(1);
    expect(String(defaults[0]?.alias)).toMatch(/^race-/);
  });

  it('unknown resolvedModel (or fallbackModel, or a model of the other family) → 400', async () => {
    expect((await putSvAlias('al-unknown', aliasBody('no-such-model'))).status).toBe(400);
    expect((await putSvAlias('al-unknown', aliasBody('al-a', { fallbackModel: 'no-such-model' }))).status).toBe(400);
    expect((await putSvAlias('al-unknown', aliasBody('eal-a'))).status).toBe(400);
    expect((await putEmAlias('eal-unknown', aliasBody('al-a'))).status).toBe(400);
    expect(byAlias(await svAliases(), 'al-unknown')).toBeUndefined();
  });

  it('CONCRETE aliases must resolve to the model of the same name (400 otherwise), also on resolve', async () => {
    expect((await putSvAlias('al-a', { type: 'CONCRETE', displayName: 'c', resolvedModel: 'al-b' })).status).toBe(400);
    const ok = await putSvAlias('al-a', { type: 'CONCRETE', displayName: 'c', resolvedModel: 'al-a' });
    expect(ok.status, ok.text).toBe(201);
    expect((await t.client.put(`${SV}/model-aliases/al-a/resolve`, { resolvedModel: 'al-b' }, owner())).status).toBe(400);
    expect((await putEmAlias('eal-a', { type: 'CONCRETE', displayName: 'c', resolvedModel: 'eal-b' })).status).toBe(400);
    expect((await putEmAlias('eal-a', { type: 'CONCRETE', displayName: 'c', resolvedModel: 'eal-a' })).status).toBe(201);
  });

  it('invalid alias requests → 400 (bad type, bad alias name, fallback equal to primary, negative minHierarchyOrder)', async () => {
    expect((await putSvAlias('al-x', aliasBody('al-a', { type: 'WHATEVER' }))).status).toBe(400);
    expect((await putSvAlias('Bad%20Alias', aliasBody('al-a'))).status).toBe(400);
    expect((await putSvAlias('al-x', aliasBody('al-a', { fallbackModel: 'al-a' }))).status).toBe(400);
    expect((await putSvAlias('al-x', aliasBody('al-a', { minHierarchyOrder: -1 }))).status).toBe(400);
    expect((await putSvAlias('al-x', { type: 'FAMILY', resolvedModel: 'al-a' })).status).toBe(400);
  });

  it('resolve changes the primary (and sentver fallback) model; 400 for unknown models; 404 for an unknown alias', async () => {
    await svAlias('al-res', aliasBody('al-a', { isDefault: false }));
    const res = await t.client.put<Json>(`${SV}/model-aliases/al-res/resolve`, { resolvedModel: 'al-b', fallbackModel: 'al-a' }, owner());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ alias: 'al-res', resolvedModel: 'al-b', fallbackModel: 'al-a', isDefault: false });
    const cleared = await t.client.put<Json>(`${SV}/model-aliases/al-res/resolve`, { resolvedModel: 'al-a' }, owner());
    expect(cleared.body).toMatchObject({ resolvedModel: 'al-a', fallbackModel: null });
    expect((await t.client.put(`${SV}/model-aliases/al-res/resolve`, { resolvedModel: 'nope-model' }, owner())).status).toBe(400);
    expect((await t.client.put(`${SV}/model-aliases/al-nobody/resolve`, { resolvedModel: 'al-a' }, owner())).status).toBe(404);

    await emAlias('eal-res', aliasBody('eal-a', { isDefault: false }));
    const em = await t.client.put<Json>(`${EM}/model-aliases/eal-res/resolve`, { resolvedModel: 'eal-b' }, owner());
    expect(em.status, em.text).toBe(200);
    expect(em.body.resolvedModel).toBe('eal-b');
    expect((await t.client.put(`${EM}/model-aliases/eal-res/resolve`, { resolvedModel: 'eal-b', fallbackModel: 'eal-a' }, owner())).status).toBe(400);
    expect((await t.client.put(`${EM}/model-aliases/eal-nobody/resolve`, { resolvedModel: 'eal-a' }, owner())).status).toBe(404);
  });

  it.each([['sentver', SV, 'al-a'], ['embedding', EM, 'eal-a']] as const)('%s: deprecate stores dates and message; undeprecate clears them all', async (_f, base, model) => {
    const put = base === SV ? putSvAlias : putEmAlias;
    expect((await put('al-dep', aliasBody(model, { isDefault: false }))).status).toBe(201);
    const dep = await t.client.put<Json>(`${base}/model-aliases/al-dep/deprecate`, { deprecationDate: '2024-01-01T00:00:00Z', sunsetDate: '2099-06-01T12:00:00Z', message: 'switch to v2' }, owner());
    expect(dep.status, dep.text).toBe(200);
    expect(dep.body).toMatchObject({ deprecated: true, deprecationDate: '2024-01-01T00:00:00.000Z', sunsetDate: '2099-06-01T12:00:00.000Z', deprecationMessage: 'switch to v2' });
    // deprecating again without a date keeps the date already in force
    const again = await t.client.put<Json>(`${base}/model-aliases/al-dep/deprecate`, {}, owner());
    expect(again.body).toMatchObject({ deprecated: true, deprecationDate: '2024-01-01T00:00:00.000Z', sunsetDate: null });
    expect((await t.client.put(`${base}/model-aliases/al-dep/deprecate`, { deprecationDate: 'yesterday' }, owner())).status).toBe(400);
    expect((await t.client.put(`${base}/model-aliases/al-dep/deprecate`, { deprecationDate: '2024-01-02T00:00:00Z', sunsetDate: '2024-01-01T00:00:00Z' }, owner())).status).toBe(400);
    await t.client.put(`${base}/model-aliases/al-dep/deprecate`, { sunsetDate: '2099-01-01T00:00:00Z', message: 'bye' }, owner());
    const und = await t.client.put<Json>(`${base}/model-aliases/al-dep/undeprecate`, undefined, owner());
    expect(und.status, und.text).toBe(200);
    expect(und.body).toMatchObject({ deprecated: false, deprecationDate: null, sunsetDate: null, deprecationMessage: null });
    // a first deprecation without a date starts now
    const fresh = await t.client.put<Json>(`${base}/model-aliases/al-dep/deprecate`, {}, owner());
    expect(Math.abs(Date.parse(fresh.body.deprecationDate as string) - Date.now())).toBeLessThan(60_000);
    await t.client.put(`${base}/model-aliases/al-dep/undeprecate`, undefined, owner());
    expect((await t.client.put(`${base}/model-aliases/al-nobody/deprecate`, {}, owner())).status).toBe(404);
    expect((await t.client.put(`${base}/model-aliases/al-nobody/undeprecate`, undefined, owner())).status).toBe(404);
  });

  it.each([['sentver', SV, 'al-a'], ['embedding', EM, 'eal-a']] as const)('%s: DELETE answers 204 then 404; GET list no longer shows it', async (_f, base, model) => {
    const put = base === SV ? putSvAlias : putEmAlias;
    expect((await put('al-gone', aliasBody(model, { isDefault: false }))).status).toBe(201);
    expect((await t.client.delete(`${base}/model-aliases/al-gone`, owner())).status).toBe(204);
    expect((await t.client.delete(`${base}/model-aliases/al-gone`, owner())).status).toBe(404);
    const list = await t.client.get<Json[]>(`${base}/model-aliases`, owner());
    expect(list.status).toBe(200);
    expect(list.body.map((a) => a.alias)).not.toContain('al-gone');
    expect(list.body.map((a) => a.alias)).toEqual([...list.body.map((a) => a.alias)].sort());
  });
});

// --------------------------------------------------------------------------------------------------

describe('resolution and discovery (member of the tenant)', () => {
  beforeAll(async () => {
    await svModel('r-avail', 'AVAILABLE');
    await svModel('r-maint', 'MAINTENANCE');
    await svModel('r-dep', 'DEPRECATED');
    await svModel('r-inactive');
    await svAlias('r-main', aliasBody('r-avail', { isDefault: true }));
    await svAlias('r-staff', aliasBody('r-avail', { isDefault: false, minHierarchyOrder: 100 }));
    await svAlias('r-old', aliasBody('r-dep', { isDefault: false }));
    await svAlias('r-sunset', aliasBody('r-avail', { isDefault: false }));
    await svAlias('r-fb', aliasBody('r-maint', { isDefault: false, fallbackModel: 'r-avail' }));
    await svAlias('r-fb-inactive', aliasBody('r-inactive', { isDefault: false, fallbackModel: 'r-dep' }));
    await svAlias('r-nofb', aliasBody('r-maint', { isDefault: false }));
    await svAlias('r-both-down', aliasBody('r-maint', { isDefault: false, fallbackModel: 'r-inactive' }));
    await emModel('er-avail');
    await emModel('er-maint', 'MAINTENANCE');
    await emAlias('er-main', aliasBody('er-avail', { isDefault: true }));
    await emAlias('er-staff', aliasBody('er-avail', { isDefault: false, minHierarchyOrder: 51 }));
    await emAlias('er-down', aliasBody('er-maint', { isDefault: false }));
    await emAlias('er-sunset', aliasBody('er-avail', { isDefault: false, deprecated: true, deprecationDate: '2020-01-01T00:00:00Z', sunsetDate: '2021-01-01T00:00:00Z' }));
  });

  it('the tenant default resolves (GraphQL, alias omitted); a named alias resolves over REST with the resolution shape', async () => {
    const gql = await t.client.gql<{ sentverModelAliasResolution: Json; speakerEmbeddingModelAliasResolution: Json }>(
      '{ sentverModelAliasResolution { requestedAlias alias resolvedModel usedFallback } speakerEmbeddingModelAliasResolution { requestedAlias alias resolvedModel } }', {}, member());
    expect(gql.errors).toEqual([]);
    expect(gql.data?.sentverModelAliasResolution).toEqual({ requestedAlias: null, alias: 'r-main', resolvedModel: 'r-avail', usedFallback: false });
    expect(gql.data?.speakerEmbeddingModelAliasResolution).toEqual({ requestedAlias: null, alias: 'er-main', resolvedModel: 'er-avail' });
    const res = await t.client.get<Json>(`${SV_USER}/r-main`, member());
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(RESOLUTION_FIELDS);
    expect(res.body).toEqual({ requestedAlias: 'r-main', alias: 'r-main', resolvedModel: 'r-avail', usedFallback: false, deprecated: false, deprecationDate: null, sunsetDate: null, deprecationMessage: null });
    expect(res.headers.get('deprecation')).toBeNull();
    expect(res.headers.get('sunset')).toBeNull();
    const em = await t.client.get<Json>(`${EM_USER}/er-main`, member());
    expect(em.status).toBe(200);
    expect(em.body.resolvedModel).toBe('er-avail');
  });

  it('options list the aliases with the default flag and the resolved model locales, and no gRPC configuration', async () => {
    const res = await t.client.get<Json[]>(SV_USER, member());
    expect(res.status, res.text).toBe(200);
    const main = byAlias(res.body, 'r-main');
    expect(main).toMatchObject({ alias: 'r-main', type: 'FAMILY', isDefault: true, deprecated: false, supportedLocales: ['en-US', 'de-DE'] });
    expect(res.text).not.toContain('grpc');
    expect(res.text).not.toContain('127.0.0.1');
  });

  it('minHierarchyOrder above the member rank hides the alias (absent from options, 404 on resolution) while the admin sees it', async () => {
    const options = (await t.client.get<Json[]>(SV_USER, member())).body.map((a) => a.alias);
    expect(options).not.toContain('r-staff');
    expect((await t.client.get(`${SV_USER}/r-staff`, member())).status).toBe(404);
    const adminOptions = (await t.client.get<Json[]>(SV_USER, owner())).body.map((a) => a.alias);
    expect(adminOptions).toContain('r-staff');
    expect((await t.client.get<Json>(`${SV_USER}/r-staff`, owner())).status).toBe(200);
    // exactly the member's rank (50) is visible
    await svAlias('r-rank50', aliasBody('r-avail', { isDefault: false, minHierarchyOrder: 50 }));
    expect((await t.client.get(`${SV_USER}/r-rank50`, member())).status).toBe(200);
    // embedding: 51 is just above a member's 50
    expect((await t.client.get<Json[]>(EM_USER, member())).body.map((a) => a.alias)).not.toContain('er-staff');
    expect((await t.client.get(`${EM_USER}/er-staff`, member())).status).toBe(404);
    expect((await t.client.get(`${EM_USER}/er-staff`, owner())).status).toBe(200);
  });

  it('a deprecated alias answers with Deprecation (@unix seconds) and Sunset (HTTP-date) headers', async () => {
    const dep = await t.client.put(`${SV}/model-aliases/r-old/deprecate`, { deprecationDate: '2024-03-01T00:00:00Z', sunsetDate: '2099-01-01T00:00:00Z', message: 'use r-main' }, owner());
    expect(dep.status).toBe(200);
    const res = await t.client.get<Json>(`${SV_USER}/r-old`, member());
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('deprecation')).toBe(`@${Date.parse('2024-03-01T00:00:00Z') / 1000}`);
    expect(res.headers.get('sunset')).toBe('Thu, 01 Jan 2099 00:00:00 GMT');
    // a DEPRECATED concrete model still serves
    expect(res.body).toMatchObject({ resolvedModel: 'r-dep', usedFallback: false, deprecated: true, deprecationMessage: 'use r-main', sunsetDate: '2099-01-01T00:00:00.000Z' });
    const opt = byAlias((await t.client.get<Json[]>(SV_USER, member())).body, 'r-old');
    expect(opt).toMatchObject({ deprecated: true, deprecationMessage: 'use r-main' });
    // undeprecated: headers gone
    await t.client.put(`${SV}/model-aliases/r-old/undeprecate`, undefined, owner());
    const after = await t.client.get<Json>(`${SV_USER}/r-old`, member());
    expect(after.headers.get('deprecation')).toBeNull();
    expect(after.headers.get('sunset')).toBeNull();
  });

  it('past its sunset an alias answers 410 Gone and is absent from options (both families)', async () => {
    const dep = await t.client.put(`${SV}/model-aliases/r-sunset/deprecate`, { deprecationDate: '2020-01-01T00:00:00Z', sunsetDate: '2021-01-01T00:00:00Z', message: 'gone' }, owner());
    expect(dep.status).toBe(200);
    const res = await t.client.get<Json>(`${SV_USER}/r-sunset`, member());
    expect(res.status, res.text).toBe(410);
    expect(res.body.code).toBe('GONE');
    expect((await t.client.get<Json[]>(SV_USER, member())).body.map((a) => a.alias)).not.toContain('r-sunset');
    expect((await t.client.get(`${EM_USER}/er-sunset`, member())).status).toBe(410);
    expect((await t.client.get<Json[]>(EM_USER, member())).body.map((a) => a.alias)).not.toContain('er-sunset');
    // the admin still manages it
    expect(byAlias(await svAliases(), 'r-sunset')).toBeDefined();
  });

  it('a MAINTENANCE or INACTIVE primary with a usable fallback resolves to the fallback (usedFallback true)', async () => {
    const res = await t.client.get<Json>(`${SV_USER}/r-fb`, member());
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ alias: 'r-fb', resolvedModel: 'r-avail', usedFallback: true });
    const inactive = await t.client.get<Json>(`${SV_USER}/r-fb-inactive`, member());
    expect(inactive.status).toBe(200);
    expect(inactive.body).toMatchObject({ resolvedModel: 'r-dep', usedFallback: true });
  });

  it('without a usable fallback the resolution answers 503 (both families)', async () => {
    const res = await t.client.get<Json>(`${SV_USER}/r-nofb`, member());
    expect(res.status, res.text).toBe(503);
    expect(res.body.code).toBe('UNAVAILABLE');
    expect((await t.client.get(`${SV_USER}/r-both-down`, member())).status).toBe(503);
    expect((await t.client.get(`${EM_USER}/er-down`, member())).status).toBe(503);
  });

  it('a status change takes effect on the next resolution (primary back to AVAILABLE: no fallback)', async () => {
    await patch(`${SV}/models/r-maint/status`, { status: 'AVAILABLE' });
    expect((await t.client.get<Json>(`${SV_USER}/r-fb`, member())).body).toMatchObject({ resolvedModel: 'r-maint', usedFallback: false });
    await patch(`${SV}/models/r-maint/status`, { status: 'MAINTENANCE' });
    expect((await t.client.get<Json>(`${SV_USER}/r-fb`, member())).body).toMatchObject({ resolvedModel: 'r-avail', usedFallback: true });
  });

  it('an unknown alias → 404', async () => {
    expect((await t.client.get(`${SV_USER}/r-nobody`, member())).status).toBe(404);
    expect((await t.client.get(`${EM_USER}/r-nobody`, member())).status).toBe(404);
  });

  it('an identity-only key → 403; no credential → 401', async () => {
    const idOnly = await acme.apiKeyOf(memberBearer);
    for (const path of [SV_USER, `${SV_USER}/r-main`, EM_USER, `${EM_USER}/er-main`]) {
      expect((await t.client.get(path, { apiKey: idOnly })).status, path).toBe(403);
      expect((await t.client.get(path)).status, path).toBe(401);
    }
  });

  it('a member cannot use the administration paths (403)', async () => {
    expect((await t.client.get(`${SV}/models`, member())).status).toBe(403);
    expect((await t.client.get(`${EM}/model-aliases`, member())).status).toBe(403);
    expect((await registerSv(svBody('member-made'), member())).status).toBe(403);
  });
});

// --------------------------------------------------------------------------------------------------

describe('tenant isolation', () => {
  const globexCaller = (): Caller => ({ apiKey: globexKey });

  it("another tenant's admin sees none of these models or aliases", async () => {
    expect((await listSv(globexCaller())).map((m) => m.name)).not.toContain('sv-full');
    expect(await listEm(globexCaller())).toEqual([]);
    expect(await svAliases(globexCaller())).toEqual([]);
    expect(await emAliases(globexCaller())).toEqual([]);
    expect(await t.client.get<Json[]>(SV_USER, globexCaller()).then((r) => r.body)).toEqual([]);
    expect((await t.client.get(`${SV_USER}/r-main`, globexCaller())).status).toBe(404);
    expect((await t.client.get(`${EM_USER}/er-main`, globexCaller())).status).toBe(404);
  });

  it('and cannot change, delete, test or alias them (404 / 400)', async () => {
    const g = globexCaller();
    expect((await t.client.put(`${SV}/models/sv-full`, withoutName(svBody('sv-full', { displayName: 'hijack' })), g)).status).toBe(404);
    expect((await patch(`${SV}/models/sv-full/status`, { status: 'AVAILABLE' }, g)).status).toBe(404);
    expect((await t.client.delete(`${SV}/models/sv-full`, g)).status).toBe(404);
    expect((await t.client.post(`${SV}/models/sv-full/test-connection`, undefined, g)).status).toBe(404);
    expect((await t.client.put(`${EM}/models/em-full`, withoutName(emBody('em-full')), g)).status).toBe(404);
    expect((await patch(`${EM}/models/em-full/status`, { status: 'INACTIVE' }, g)).status).toBe(404);
    expect((await t.client.delete(`${EM}/models/em-full`, g)).status).toBe(404);
    expect((await t.client.put(`${SV}/model-aliases/r-main/resolve`, { resolvedModel: 'r-avail' }, g)).status).toBe(404);
    expect((await t.client.put(`${SV}/model-aliases/r-main/deprecate`, {}, g)).status).toBe(404);
    expect((await t.client.put(`${EM}/model-aliases/er-main/undeprecate`, undefined, g)).status).toBe(404);
    expect((await t.client.delete(`${SV}/model-aliases/r-main`, g)).status).toBe(404);
    expect((await t.client.delete(`${EM}/model-aliases/er-main`, g)).status).toBe(404);
    // an alias in their own tenant cannot point at acme's model
    expect((await putSvAlias('steal', aliasBody('r-avail'), g)).status).toBe(400);
    // acme's records are untouched
    expect(byName(await listSv(), 'sv-full')?.displayName).toBe('Sentver sv-full');
    expect(byName(await listEm(), 'em-full')?.status).toBe('AVAILABLE');
    expect(byAlias(await svAliases(), 'r-main')).toMatchObject({ isDefault: true, deprecated: false });
  });

  it('and may reuse the same model and alias names in their own tenant', async () => {
    const g = globexCaller();
    const sv = await registerSv(svBody('sv-full', { displayName: 'Globex copy' }), g);
    expect(sv.status, sv.text).toBe(201);
    const em = await registerEm(emBody('em-full'), g);
    expect(em.status).toBe(201);
    const alias = await putSvAlias('r-main', aliasBody('sv-full'), g);
    expect(alias.status).toBe(201);
    expect(alias.body.isDefault).toBe(true); // their first alias
    expect(byName(await listSv(), 'sv-full')?.displayName).toBe('Sentver sv-full');
    expect(byAlias(await svAliases(), 'r-main')?.resolvedModel).toBe('r-avail');
  });
});

// --------------------------------------------------------------------------------------------------

describe('scopes', () => {
  it('a key without admin:sentver-models:delete can list and register but not DELETE (403)', async () => {
    const key = await acme.apiKeyOf(ownerBearer, ['admin:sentver-models:write']);
    expect((await t.client.get(`${SV}/models`, { apiKey: key })).status).toBe(200);
    expect((await registerSv(svBody('scoped-sv'), { apiKey: key })).status).toBe(201);
    expect((await t.client.delete(`${SV}/models/scoped-sv`, { apiKey: key })).status).toBe(403);
    expect(byName(await listSv(), 'scoped-sv')).toBeDefined();
    // and nothing else of the family
    expect((await t.client.get(`${SV}/model-aliases`, { apiKey: key })).status).toBe(403);
    expect((await t.client.get(`${EM}/models`, { apiKey: key })).status).toBe(403);
  });

  it('a key with only admin:sentver-models:delete can DELETE but not list', async () => {
    const key = await acme.apiKeyOf(ownerBearer, ['admin:sentver-models:delete']);
    expect((await t.client.get(`${SV}/models`, { apiKey: key })).status).toBe(403);
    expect((await t.client.delete(`${SV}/models/scoped-sv`, { apiKey: key })).status).toBe(204);
  });

  it('alias writes need admin:sentver-model-aliases:write; alias deletes need …:delete', async () => {
    const write = await acme.apiKeyOf(ownerBearer, ['admin:sentver-model-aliases:write']);
    expect((await t.client.get(`${SV}/model-aliases`, { apiKey: write })).status).toBe(200);
    expect((await putSvAlias('scoped-alias', aliasBody('r-avail', { isDefault: false }), { apiKey: write })).status).toBe(201);
    expect((await t.client.delete(`${SV}/model-aliases/scoped-alias`, { apiKey: write })).status).toBe(403);
    expect((await t.client.get(`${SV}/models`, { apiKey: write })).status).toBe(403);
    const del = await acme.apiKeyOf(ownerBearer, ['admin:sentver-model-aliases:delete']);
    expect((await putSvAlias('scoped-alias', aliasBody('r-avail'), { apiKey: del })).status).toBe(403);
    expect((await t.client.delete(`${SV}/model-aliases/scoped-alias`, { apiKey: del })).status).toBe(204);
  });

  it('embedding paths need the embedding scopes, not the sentver ones', async () => {
    const sv = await acme.apiKeyOf(ownerBearer, ['admin:sentver-models:write', 'admin:sentver-models:delete', 'admin:sentver-model-aliases:write', 'admin:sentver-model-aliases:delete']);
    expect((await t.client.get(`${EM}/models`, { apiKey: sv })).status).toBe(403);
    expect((await t.client.get(`${EM}/model-aliases`, { apiKey: sv })).status).toBe(403);
    expect((await registerEm(emBody('scoped-em'), { apiKey: sv })).status).toBe(403);
    const em = await acme.apiKeyOf(ownerBearer, ['admin:speaker-embedding-models:write']);
    expect((await registerEm(emBody('scoped-em'), { apiKey: em })).status).toBe(201);
    expect((await t.client.delete(`${EM}/models/scoped-em`, { apiKey: em })).status).toBe(403);
    expect((await t.client.post(`${EM}/models/scoped-em/test-connection`, undefined, { apiKey: em })).status).toBe(200);
    const emAliasKey = await acme.apiKeyOf(ownerBearer, ['admin:speaker-embedding-model-aliases:write']);
    expect((await t.client.get(`${EM}/model-aliases`, { apiKey: emAliasKey })).status).toBe(200);
    expect((await t.client.delete(`${EM}/model-aliases/er-down`, { apiKey: emAliasKey })).status).toBe(403);
  });

  it('speaker:models:read alone reaches discovery but no administration path', async () => {
    const read = await acme.apiKeyOf(ownerBearer, ['speaker:models:read']);
    expect((await t.client.get(SV_USER, { apiKey: read })).status).toBe(200);
    expect((await t.client.get(`${EM_USER}/er-main`, { apiKey: read })).status).toBe(200);
    expect((await t.client.get(`${SV}/models`, { apiKey: read })).status).toBe(403);
    expect((await t.client.post(`${SV}/models/sv-full/test-connection`, undefined, { apiKey: read })).status).toBe(403);
  });

  it('no credential → 401 on administration paths', async () => {
    expect((await t.client.get(`${SV}/models`)).status).toBe(401);
    expect((await t.client.delete(`${EM}/models/em-full`)).status).toBe(401);
    expect((await t.client.put(`${SV}/model-aliases/r-main/undeprecate`)).status).toBe(401);
  });
});

// --------------------------------------------------------------------------------------------------

describe('test-connection against real gRPC engines on loopback', () => {
  const testSv = (name: string) => t.client.post<Json>(`${SV}/models/${name}/test-connection`, undefined, owner());
  const testEm = (name: string) => t.client.post<Json>(`${EM}/models/${name}/test-connection`, undefined, owner());

  it('success true with status SERVING against a live engine; the configured metadata arrives at the engine', async () => {
    const e = await engine('live-sv');
    await svModel('g-live', undefined, { grpcTarget: e.address, grpcAuthority: null, grpcMetadata: { 'x-team': 'alpha', 'x-model-key': 'k-123' } });
    const res = await testSv('g-live');
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['latencyMs', 'message', 'status', 'success']);
    expect(res.body).toMatchObject({ success: true, status: 'SERVING' });
    expect(typeof res.body.latencyMs).toBe('number');
    const health = e.calls.filter((c) => c.method === 'Health');
    expect(health).toHaveLength(1);
    expect(health[0]?.metadata).toMatchObject({ 'x-team': 'alpha', 'x-model-key': 'k-123' });
  });

  it('the embedding family tests its engine too (SpeakerEmbedding service), with its metadata and authority override', async () => {
    const e = await engine('live-em');
    await emModel('g-live-em', 'AVAILABLE', { target: e.address, authority: 'embed.internal:443', metadata: { 'x-team': 'beta' } });
    const res = await testEm('g-live-em');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, status: 'SERVING' });
    expect(e.calls[0]).toMatchObject({ method: 'Health', authority: 'embed.internal:443' });
    expect(e.calls[0]?.metadata['x-team']).toBe('beta');
  });

  it('success false with a clear message when nothing listens', async () => {
    const port = await deadPort();
    await svModel('g-dead', undefined, { grpcTarget: `127.0.0.1:${port}`, grpcDeadlineMs: 1500 });
    const res = await testSv('g-dead');
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(false);
    expect(res.body.status).toBeNull();
    expect(String(res.body.message)).toMatch(/unavailable|connect|refused|deadline/i);
  });

  it('an engine reporting NOT_SERVING → success false with that status', async () => {
    const e = await engine('sick');
    e.healthStatus = 'NOT_SERVING';
    await svModel('g-sick', undefined, { grpcTarget: e.address });
    const res = await testSv('g-sick');
    expect(res.body).toMatchObject({ success: false, status: 'NOT_SERVING' });
  });

  it('an engine slower than grpcDeadlineMs → success false with a deadline message', async () => {
    const e = await engine('slow');
    e.healthDelayMs = 1500;
    await svModel('g-slow', undefined, { grpcTarget: e.address, grpcDeadlineMs: 200 });
    const started = Date.now();
    const res = await testSv('g-slow');
    expect(res.body.success).toBe(false);
    expect(String(res.body.message)).toMatch(/deadline/i);
    expect(Date.now() - started).toBeLessThan(1400);
  });

  it('a static:/// target with one endpoint down still connects through the other', async () => {
    const up = await engine('half-up');
    const port = await deadPort();
    await svModel('g-half', undefined, { grpcTarget: `static:///127.0.0.1:${port},${up.address}`, grpcDeadlineMs: 3000 });
    const res = await testSv('g-half');
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ success: true, status: 'SERVING' });
    expect(up.calls.length).toBeGreaterThan(0);
  });

  // how calls spread over the endpoints of one channel is the kit's round-robin test; each
  // test-connection dials a fresh channel, whose first call goes to whichever endpoint is ready first
  it('a two-endpoint static:/// target: test-connection reaches the engines, and still succeeds with either one down', async () => {
    const a = await engine('rr-a');
    const b = await engine('rr-b');
    await svModel('g-rr', undefined, { grpcTarget: `static:///${a.address},${b.address}` });
    for (let i = 0; i < 4; i++) expect((await testSv('g-rr')).body.success).toBe(true);
    expect(a.calls.length + b.calls.length).toBe(4);
    await a.stop();
    const before = b.calls.length;
    expect((await testSv('g-rr')).body).toMatchObject({ success: true, status: 'SERVING' });
    expect(b.calls.length).toBe(before + 1);
  });

  it('SYSTEM_TRUST with the deployment CA and an authority override connects; without the override the name check fails', async () => {
    const pki = makeTestPki('engine.test');
    const saved = process.env.GRPC_CA_FILE;
    process.env.GRPC_CA_FILE = pki.caFile;
    try {
      const e = await engine('tls', grpc.ServerCredentials.createSsl(null, [{ cert_chain: pki.serverCert, private_key: pki.serverKey }], false));
      await svModel('g-tls', undefined, { grpcTarget: e.address, grpcTlsMode: 'SYSTEM_TRUST', grpcAuthority: 'engine.test' });
      const ok = await testSv('g-tls');
      expect(ok.body, JSON.stringify(ok.body)).toMatchObject({ success: true, status: 'SERVING' });
      await svModel('g-tls-noauth', undefined, { grpcTarget: e.address, grpcTlsMode: 'SYSTEM_TRUST', grpcAuthority: null, grpcDeadlineMs: 1500 });
      const bad = await testSv('g-tls-noauth');
      expect(bad.body.success).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.GRPC_CA_FILE; else process.env.GRPC_CA_FILE = saved;
      pki.cleanup();
    }
  });

  it('MTLS with the deployment client certificate connects to an engine that requires it', async () => {
    const pki = makeTestPki('mtls.test');
    const keys = ['GRPC_CA_FILE', 'GRPC_CLIENT_CERT_FILE', 'GRPC_CLIENT_KEY_FILE'] as const;
    const saved = keys.map((k) => process.env[k]);
    process.env.GRPC_CA_FILE = pki.caFile;
    process.env.GRPC_CLIENT_CERT_FILE = pki.clientCertFile;
    process.env.GRPC_CLIENT_KEY_FILE = pki.clientKeyFile;
    try {
      const e = await engine('mtls', grpc.ServerCredentials.createSsl(pki.ca, [{ cert_chain: pki.serverCert, private_key: pki.serverKey }], true));
      await svModel('g-mtls', undefined, { grpcTarget: e.address, grpcTlsMode: 'MTLS', grpcAuthority: 'mtls.test' });
      const ok = await testSv('g-mtls');
      expect(ok.body, JSON.stringify(ok.body)).toMatchObject({ success: true, status: 'SERVING' });
      // the same engine refuses a client without a certificate
      await svModel('g-mtls-nocert', undefined, { grpcTarget: e.address, grpcTlsMode: 'SYSTEM_TRUST', grpcAuthority: 'mtls.test', grpcDeadlineMs: 1500 });
      expect((await testSv('g-mtls-nocert')).body.success).toBe(false);
    } finally {
      keys.forEach((k, i) => { const v = saved[i]; if (v === undefined) delete process.env[k]; else process.env[k] = v; });
      pki.cleanup();
    }
  });

  it('test-connection of an unknown model → 404', async () => {
    expect((await testSv('g-nobody')).status).toBe(404);
    expect((await testEm('g-nobody')).status).toBe(404);
  });
});

// --------------------------------------------------------------------------------------------------

describe('GraphQL', () => {
  const QUERY = `query ($id: ID!) { tenant(id: $id) {
    sentverModels { name status }
    speakerEmbeddingModels { name activeVoicePrintCount grpc { target } }
    sentverModelAliases { alias isDefault resolved { name status } fallback { name } }
    speakerEmbeddingModelAliases { alias resolved { name } }
  } }`;
  interface TenantData {
    sentverModels: { name: string; status: string }[];
    speakerEmbeddingModels: { name: string; activeVoicePrintCount: number; grpc: { target: string } }[];
    sentverModelAliases: { alias: string; isDefault: boolean; resolved: { name: string; status: string }; fallback: { name: string } | null }[];
    speakerEmbeddingModelAliases: { alias: string; resolved: { name: string } }[];
  }

  it('Tenant exposes models and aliases with their resolved and fallback model objects', async () => {
    const res = await t.client.gql<{ tenant: TenantData }>(QUERY, { id: acme.id }, owner());
    expect(res.errors).toEqual([]);
    const d = res.data?.tenant;
    expect(d?.sentverModels.map((m) => m.name)).toEqual((await listSv()).map((m) => m.name));
    expect(d?.speakerEmbeddingModels.map((m) => m.name)).toEqual((await listEm()).map((m) => m.name));
    expect(d?.sentverModelAliases.find((a) => a.alias === 'r-fb')).toEqual({ alias: 'r-fb', isDefault: false, resolved: { name: 'r-maint', status: 'MAINTENANCE' }, fallback: { name: 'r-avail' } });
    expect(d?.sentverModelAliases.find((a) => a.alias === 'r-main')).toMatchObject({ isDefault: true, resolved: { name: 'r-avail' }, fallback: null });
    expect(d?.speakerEmbeddingModelAliases.find((a) => a.alias === 'er-main')?.resolved.name).toBe('er-avail');
  });

  it('me { tenant { … } } answers the same for the caller’s own tenant', async () => {
    const res = await t.client.gql<{ me: { tenant: { id: string; sentverModels: { name: string }[]; sentverModelAliases: { alias: string; resolved: { name: string } }[] } } }>(
      '{ me { tenant { id sentverModels { name } sentverModelAliases { alias resolved { name } } } } }', {}, owner());
    expect(res.errors).toEqual([]);
    expect(res.data?.me.tenant.id).toBe(acme.id);
    expect(res.data?.me.tenant.sentverModels.map((m) => m.name)).toContain('sv-full');
    expect(res.data?.me.tenant.sentverModelAliases.find((a) => a.alias === 'r-main')?.resolved.name).toBe('r-avail');
  });

  it("another tenant's admin cannot read acme's models through tenant(id)", async () => {
    const res = await t.client.gql<{ tenant: TenantData | null }>(QUERY, { id: acme.id }, { apiKey: globexKey });
    expect(res.errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(res.data ?? {})).not.toContain('sv-full');
  });

  it('a member lacks the admin scopes for the nested fields', async () => {
    const res = await t.client.gql('{ me { tenant { sentverModels { name } } } }', {}, member());
    expect(res.errors.map((e) => e.extensions?.code)).toContain('FORBIDDEN');
  });
});

describe('default alias in a fresh family', () => {
  it('20 concurrent first PUTs (isDefault omitted) in a family with no alias yet leave exactly one default', async () => {
    const g: Caller = { apiKey: globexKey };
    expect(await emAliases(g)).toEqual([]);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => putEmAlias(`first-${i}`, aliasBody('em-full'), g)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(results.filter((r) => r.body.isDefault)).toHaveLength(1);
    expect((await emAliases(g)).filter((a) => a.isDefault)).toHaveLength(1);
  });
});

describe('the default alias', () => {
  it('cannot be unset directly (409): a family with aliases keeps exactly one default', async () => {
    await svModel('default-rule-model', 'AVAILABLE');
    const aliases = (await t.client.get<Json[]>(`${SV}/model-aliases`, owner())).body;
    const current = aliases.find((a) => a.isDefault === true) ?? (await svAlias('default-rule-a', aliasBody('default-rule-model')));
    const name = String(current.alias);
    const res = await putSvAlias(name, aliasBody(String(current.resolvedModel), { isDefault: false }));
    expect(res.status, res.text).toBe(409);
    const after = (await t.client.get<Json[]>(`${SV}/model-aliases`, owner())).body;
    expect(after.filter((a) => a.isDefault === true).map((a) => a.alias)).toEqual([name]);
  });

  it('announces a deprecation scheduled for later with a Deprecation header', async () => {
    await svModel('future-dep-model', 'AVAILABLE');
    await svAlias('future-dep', aliasBody('future-dep-model'));
    const later = new Date(Date.now() + 7 * 86_400_000).toISOString();
    expect((await t.client.put(`${SV}/model-aliases/future-dep/deprecate`, { deprecationDate: later }, owner())).status).toBe(200);
    const res = await t.client.get<Json>(`${SV_USER}/future-dep`, member());
    expect(res.status).toBe(200);
    expect(res.body.deprecated).toBe(false);
    expect(res.headers.get('deprecation')).toBe(`@${Math.floor(Date.parse(later) / 1000)}`);
  });
});

describe('alias edge rules', () => {
  it('refuses an alias without a resolved model (400, not a server error)', async () => {
    const res = await putSvAlias('no-model', { type: 'FAMILY', displayName: 'x', resolvedModel: '' });
    expect(res.status, res.text).toBe(400);
  });

  it('refuses to delete the default alias while other aliases exist (409)', async () => {
    const aliases = (await t.client.get<Json[]>(`${SV}/model-aliases`, owner())).body;
    const def = aliases.find((a) => a.isDefault === true);
    expect(aliases.length).toBeGreaterThan(1);
    const res = await t.client.delete(`${SV}/model-aliases/${String(def?.alias)}`, owner());
    expect(res.status).toBe(409);
    expect((await t.client.get<Json[]>(`${SV}/model-aliases`, owner())).body.filter((a) => a.isDefault === true)).toHaveLength(1);
  });
});
