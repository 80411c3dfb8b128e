import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import postgres from 'postgres';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@voxgate/kit/embedded';
import { silence, synthesize } from '../support/speech';
import { wer } from '../support/wer';
import { AudioStreamClient, type ServerMessage } from '../support/audio-stream';
import type { Caller } from '../support/http';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { spawnPlatform, waitReady } from '../support/processes';
import { createTenantWithIdp, type TenantWithIdp } from '../support/tenants';

type Json = Record<string, unknown>;

let t: TestPlatform;
let acme: TenantWithIdp;
let globex: TenantWithIdp;
let ownerKey: string; // tenant-admin of acme
let memberBearer: string; // member of acme
let memberKey: string;
let memberId: string;
let viewerKey: string; // acme member key without speech:sessions:write
let globexKey: string;
let speechDir: string;
let asrPort: number;
const SENTENCE = 'The weather today is sunny and warm with a light breeze from the west.';
let sentencePcm: Buffer;

beforeAll(async () => {
  speechDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-speech-'));
  sentencePcm = Buffer.concat([silence(0.3), synthesize(speechDir, SENTENCE, 'slt'), silence(1.2)]);
  // the platform starts the reference engine itself, as the embedded default does
  asrPort = await freePort();
  t = await startTestPlatform({ ASR_ENGINE_EMBEDDED: 'on', ASR_ENGINE_PORT: String(asrPort), SESSION_ORPHAN_SECONDS: '3' });
  acme = await createTenantWithIdp(t, [{ username: 'owner', password: 'pw-owner' }, { username: 'mia', password: 'pw-mia' }]);
  globex = await createTenantWithIdp(t, [{ username: 'gadmin', password: 'pw-g' }]);
  const adminScopes = (await t.client.gql<{ roles: { slug: string; scopes: string[] }[] }>('{ roles { slug scopes } }', {}, { apiKey: t.rootKey }))
    .data?.roles.find((r) => r.slug === 'tenant-admin')?.scopes ?? [];
  ownerKey = await acme.apiKeyOf((await acme.login('owner', 'pw-owner')).access_token, adminScopes);
  memberBearer = (await acme.login('mia', 'pw-mia')).access_token;
  memberKey = await acme.apiKeyOf(memberBearer, ['speech:sessions:read', 'speech:sessions:write', 'speech:sessions:delete']);
  viewerKey = await acme.apiKeyOf(memberBearer, ['speech:sessions:read']);
  memberId = (await t.client.get<{ id: string }>('/api/v1/users/me', { bearer: memberBearer })).body.id;
  globexKey = await globex.apiKeyOf((await globex.login('gadmin', 'pw-g')).access_token, adminScopes);
  const patched = await t.client.request('PUT', `/api/v1/admin/tenants/${acme.id}`, { apiKey: ownerKey, body: { speechServiceSessionRecordingEnabled: true } });
  expect(patched.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await acme?.close();
  await globex?.close();
  await t?.close();
  fs.rmSync(speechDir, { recursive: true, force: true });
});

const owner = (): Caller => ({ apiKey: ownerKey });
const member = (): Caller => ({ apiKey: memberKey });

async function open(credentials: { apiKey?: string; bearer?: string } = { apiKey: memberKey }): Promise<AudioStreamClient> {
  return AudioStreamClient.open(t.platform.url, credentials, { 'user-agent': 'voxgate-test/1.0' });
}

/** A started session: the socket and its `started` message. */
async function started(options: Json = {}, credentials?: { apiKey?: string }): Promise<{ c: AudioStreamClient; sessionId: string; startedMsg: ServerMessage }> {
  const c = await open(credentials);
  c.start(options);
  const startedMsg = await c.next('started');
  return { c, sessionId: String(startedMsg.sessionId), startedMsg };
}

async function finished(c: AudioStreamClient): Promise<{ code: number; closed: ServerMessage }> {
  const { code } = await c.closed;
  const closed = c.of('closed')[0];
  if (!closed) throw new Error(`no closed message: ${JSON.stringify(c.messages)}`);
  return { code, closed };
}

const session = async (id: string, caller: Caller = member()) => t.client.get<Json>(`/api/v1/speech-services/streams/${id}`, caller);
const limitOverride = (userId: string, body: Json) => t.client.request<Json>('PATCH', `/api/v1/admin/users/${userId}/limit-overrides`, { ...owner(), body });

function subscribe(query: string, variables: Json, apiKey: string): { client: Client; events: Json[]; done: Promise<void>; errors: unknown[] } {
  const client = createClient({ url: `${t.platform.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { apiKey }, lazy: false, retryAttempts: 0 });
  const events: Json[] = [];
  const errors: unknown[] = [];
  const done = new Promise<void>((resolve) => {
    client.subscribe({ query, variables }, {
      next: (v) => { events.push((v.data ?? {}) as Json); },
      error: (e) => { errors.push(e); resolve(); },
      complete: () => resolve(),
    });
  });
  return { client, events, done, errors };
}

describe('live recognition over the audio WebSocket', () => {
  it('a flite sentence streamed at real time gives partial results and a final transcript close to the text, on the socket and on a GraphQL subscription', async () => {
    const { c, sessionId, startedMsg } = await started({ interimResults: true, metadata: { ticket: 'T-1' } });
    expect(startedMsg).toMatchObject({ requestedModelAlias: 'default', resolvedModelName: 'pocketsphinx-en-us', usedFallback: false, recording: false });
    const sub = subscribe(
      'subscription ($id: ID!) { streamingSessionEvents(sessionId: $id) { type partial { transcript } segment { segmentIndex transcript words { word startSeconds endSeconds } } state session { state } } }',
      { id: sessionId }, memberKey,
    );
    await new Promise((r) => setTimeout(r, 500)); // the subscription is authorized through the gateway first
    await c.streamRealtime(sentencePcm);
    c.stop();
    const { code, closed } = await finished(c).finally(() => setTimeout(() => void sub.client.dispose(), 15_000).unref());
    expect(code).toBe(1000);
    expect(closed).toMatchObject({ state: 'FINISHED', sessionId });
    expect(c.of('partial').length).toBeGreaterThan(0);
    const finals = c.of('final').map((m) => m.segment as Json);
    expect(finals.length).toBeGreaterThan(0);
    const transcript = finals.map((s) => s.transcript).join(' ');
    expect(wer(SENTENCE, transcript), transcript).toBeLessThanOrEqual(0.25);

    await Promise.race([sub.done, new Promise((r) => setTimeout(r, 10_000))]);
    await sub.client.dispose();
    expect(sub.errors).toEqual([]);
    const types = sub.events.map((e) => (e.streamingSessionEvents as Json).type);
    expect(types).toContain('PARTIAL');
    expect(types.filter((x) => x === 'SEGMENT').length).toBe(finals.length);
    expect(types[types.length - 1]).toBe('ENDED');
    const ended = sub.events[sub.events.length - 1]?.streamingSessionEvents as Json;
    expect(ended).toMatchObject({ state: 'FINISHED', session: { state: 'FINISHED' } });

    const rec = await session(sessionId);
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({
      sessionId, state: 'FINISHED', requestedModelAlias: 'default', resolvedModelName: 'pocketsphinx-en-us', usedFallback: false,
      segmentCount: finals.length, recordingRequested: false, itnRequested: false, diarizationRequested: false, recordingPurged: false,
      recordingPurgedAt: null, userAgent: 'voxgate-test/1.0', failureReason: null, metadata: { ticket: 'T-1' },
    });
    expect(rec.body.durationMilliseconds).toBe(Math.floor(sentencePcm.length / 32));
    expect(rec.body.wordsCount).toBe(finals.reduce((n, s) => n + ((s.words as unknown[] | null)?.length ?? 0), 0));
    expect(rec.body.clientAddress).toMatch(/127\.0\.0\.1/);
    expect(typeof rec.body.endTime).toBe('string');

    const segs = await t.client.get<Json[]>(`/api/v1/speech-services/streams/${sessionId}/segments`, member());
    expect(segs.status).toBe(200);
    expect(segs.body.map((s) => s.transcript)).toEqual(finals.map((s) => s.transcript));
    expect(segs.body.map((s) => s.segmentIndex)).toEqual(finals.map((_, i) => i));
    const words = segs.body.flatMap((s) => s.words as Json[]);
    expect(words.every((w) => typeof w.startSeconds === 'number' && (w.endSeconds as number) >= (w.startSeconds as number) && w.speakerTag === null)).toBe(true);
  }, 60_000);

  it('credentials can come in the first message instead of headers (browsers)', async () => {
    const c = await AudioStreamClient.open(t.platform.url);
    c.send({ type: 'auth', apiKey: memberKey });
    expect(await c.next('authenticated')).toMatchObject({ tenant: acme.name, userId: memberId });
    c.start();
    await c.next('started');
    c.audio(silence(0.5));
    c.stop();
    const { code, closed } = await finished(c);
    expect(code).toBe(1000);
    expect(closed.state).toBe('FINISHED');
  }, 30_000);

  it('auth and start may be sent back to back', async () => {
    const c = await AudioStreamClient.open(t.platform.url);
    c.send({ type: 'auth', apiKey: memberKey });
    c.start();
    await c.next('started');
    c.stop();
    expect((await finished(c)).closed.state).toBe('FINISHED');
  });

  it('a client that sends stop and closes at once still gets a FINISHED session with its segments saved', async () => {
    const pcm = Buffer.concat([silence(0.3), synthesize(speechDir, 'Open the door and turn on the light.', 'kal16')]);
    const { c, sessionId } = await started({ interimResults: false });
    await c.streamRealtime(pcm, 200);
    c.stop();
    c.close();
    let rec = await session(sessionId);
    for (let i = 0; i < 100 && rec.body.state === 'ACTIVE'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rec = await session(sessionId);
    }
    expect(rec.body.state).toBe('FINISHED');
    expect(rec.body.segmentCount).toBeGreaterThan(0);
    const segs = await t.client.get<Json[]>(`/api/v1/speech-services/streams/${sessionId}/segments`, member());
    expect(segs.body.length).toBe(rec.body.segmentCount);
  }, 30_000);

  it('a client resetting its connection during the upgrade does not take the edge down', async () => {
    const net = await import('node:net');
    const { port } = new URL(t.platform.url);
    for (let i = 0; i < 20; i++) {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      // the reset lands while the edge is still authenticating the key (a Redis round trip at least)
      socket.write(`GET /api/v1/speech-services/streams/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-API-Key: ${memberKey}\r\n\r\n`,
        () => setTimeout(() => socket.resetAndDestroy(), i % 3));
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await t.client.get('/healthz')).status).toBe(200);
  });

  it('a client that disconnects without stop leaves a CANCELLED session whose audio is counted in the monthly minutes', async () => {
    const before = await t.client.get<{ quotas: { quota: string; used: number }[] }>('/api/v1/usage', member());
    const usedBefore = before.body.quotas.find((q) => q.quota === 'monthlyTranscriptionMinutes')?.used ?? 0;
    const { c, sessionId } = await started();
    await c.streamRealtime(silence(1));
    c.close();
    let rec = await session(sessionId);
    for (let i = 0; i < 50 && rec.body.state === 'ACTIVE'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rec = await session(sessionId);
    }
    expect(rec.body).toMatchObject({ state: 'CANCELLED', durationMilliseconds: 1000 });
    const after = await t.client.get<{ quotas: { quota: string; used: number }[] }>('/api/v1/usage', member());
    expect(after.body.quotas.find((q) => q.quota === 'monthlyTranscriptionMinutes')?.used).toBe(usedBefore + 1);
  }, 30_000);

  it('recording is kept only when requested and allowed by the tenant, downloaded as throttled raw PCM, and purgeable', async () => {
    const { c, sessionId, startedMsg } = await started({ recording: true });
    expect(startedMsg.recording).toBe(true);
    const audio = Buffer.concat([silence(0.2), sentencePcm.subarray(0, 32_000)]);
    await c.streamRealtime(audio);
    c.stop();
    await finished(c);
    const res = await fetch(`${t.platform.url}/api/v1/speech-services/streams/${sessionId}/recording`, { headers: { 'x-api-key': memberKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/x-pcm');
    expect(Number(res.headers.get('x-download-rate-limit'))).toBeGreaterThan(0);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(audio)).toBe(true);
    expect((await session(sessionId)).body).toMatchObject({ recordingRequested: true, recordingPurged: false });

    expect((await t.client.delete(`/api/v1/speech-services/streams/${sessionId}/recording`, member())).status).toBe(204);
    const gone = await t.client.get<Json>(`/api/v1/speech-services/streams/${sessionId}/recording`, member());
    expect(gone.status).toBe(410);
    expect(gone.headers.get('content-type')).toContain('application/problem+json');
    const purged = await session(sessionId);
    expect(purged.body.recordingPurged).toBe(true);
    expect(typeof purged.body.recordingPurgedAt).toBe('string');
  }, 30_000);

  it('a recording requested where the tenant does not allow it: the session runs unrecorded, says why, and the download is 404', async () => {
    const { c, sessionId, startedMsg } = await started({ recording: true }, { apiKey: globexKey });
    expect(startedMsg.recording).toBe(false);
    expect(String((startedMsg.warnings as string[])[0])).toMatch(/not enabled for this tenant/);
    c.audio(silence(0.5));
    c.stop();
    await finished(c);
    expect((await session(sessionId, { apiKey: globexKey })).body.recordingRequested).toBe(true);
    expect((await t.client.get(`/api/v1/speech-services/streams/${sessionId}/recording`, { apiKey: globexKey })).status).toBe(404);
    const noRec = await started();
    noRec.c.stop();
    await finished(noRec.c);
    expect((await t.client.get(`/api/v1/speech-services/streams/${noRec.sessionId}/recording`, member())).status).toBe(404);
    expect((await t.client.delete(`/api/v1/speech-services/streams/${noRec.sessionId}/recording`, member())).status).toBe(404);
  }, 30_000);

  it('itn turns spoken numbers into digits in finals; diarization tags words with speakers', async () => {
    const pcm = Buffer.concat([silence(0.3), synthesize(speechDir, 'I have twenty five apples', 'slt'), silence(1.2)]);
    const { c, sessionId } = await started({ itn: true, diarization: true, interimResults: false });
    await c.streamRealtime(pcm, 200);
    c.stop();
    await finished(c);
    expect(c.of('partial')).toEqual([]);
    const text = c.of('final').map((m) => (m.segment as Json).transcript).join(' ');
    expect(text).toMatch(/\b25\b/);
    const rec = await session(sessionId);
    expect(rec.body).toMatchObject({ itnRequested: true, diarizationRequested: true });
    const segs = await t.client.get<Json[]>(`/api/v1/speech-services/streams/${sessionId}/segments`, member());
    const tags = segs.body.flatMap((s) => (s.words as Json[]).map((w) => w.speakerTag));
    expect(tags.length).toBeGreaterThan(0);
    expect(tags.every((x) => x === 1)).toBe(true);
  }, 30_000);
});

describe('crashes', () => {
  it('an edge killed mid-session: another edge fails the orphaned session and counts its audio', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-crash-'));
    // a second edge on the same database and Redis, as a replica behind a load balancer
    const edge = spawnPlatform({
      DATABASE_URL: t.databaseUrl, REDIS_URL: t.redisUrl, PORT: String(port), DATA_DIR: dataDir, DEV_IDP_ENABLED: 'false',
      ASR_ENGINE_TARGET: `127.0.0.1:${asrPort}`, SESSION_ORPHAN_SECONDS: '3',
    });
    try {
      await waitReady(`http://127.0.0.1:${port}/readyz`, edge);
      const usedBefore = (await t.client.get<{ quotas: { quota: string; used: number }[] }>('/api/v1/usage', member())).body.quotas
        .find((q) => q.quota === 'monthlyTranscriptionMinutes')?.used ?? 0;
      const c = await AudioStreamClient.open(`http://127.0.0.1:${port}`, { apiKey: memberKey });
      c.start();
      const sessionId = String((await c.next('started')).sessionId);
      await c.streamRealtime(silence(1.5));
      await new Promise((r) => setTimeout(r, 1_200)); // one heartbeat (every second with a 3 s orphan time) records the audio
      edge.child.kill('SIGKILL');
      let rec = await session(sessionId);
      for (let i = 0; i < 100 && rec.body.state === 'ACTIVE'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        rec = await session(sessionId);
      }
      expect(rec.body).toMatchObject({ state: 'FAILED', durationMilliseconds: 1500 });
      expect(String(rec.body.failureReason)).toMatch(/stopped responding/);
      expect(typeof rec.body.endTime).toBe('string');
      const used = (await t.client.get<{ quotas: { quota: string; used: number }[] }>('/api/v1/usage', member())).body.quotas
        .find((q) => q.quota === 'monthlyTranscriptionMinutes')?.used;
      expect(used).toBe(usedBefore + 1);
      // and the dead edge's concurrency slot is free again (not after its lease expires)
      expect((await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamMaxConcurrentSessions: 1 } } })).status).toBe(200);
      const next = await started();
      next.c.stop();
      expect((await finished(next.c)).closed.state).toBe('FINISHED');
    } finally {
      await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamMaxConcurrentSessions: null } } });
      await edge.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('usage settlement', () => {
  it('an ended session whose minutes never reached the ledger is settled by the sweeper', async () => {
    const { c, sessionId } = await started();
    c.audio(silence(1));
    c.stop();
    await finished(c);
    // as if the ledger had been unreachable when the session ended: still reserved, not settled
    const sql = postgres(t.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      await sql`update billing.usage_records set state = 'RESERVED', amount = 10, expires_at = now() + interval '1 hour' where source_key = ${`stream-session:${sessionId}`}`;
      await sql`update sessions.streaming_sessions set usage_settled_at = null, end_time = now() - interval '10 seconds' where id = ${sessionId}`;
      let row: { state: string; amount: number } | undefined;
      for (let i = 0; i < 60; i++) {
        [row] = await sql<{ state: string; amount: number }[]>`select state, amount::int as amount from billing.usage_records where source_key = ${`stream-session:${sessionId}`}`;
        if (row?.state === 'COMMITTED') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(row).toEqual({ state: 'COMMITTED', amount: 1 });
      for (let i = 0; i < 20; i++) {
        const [s] = await sql<{ settled: boolean }[]>`select usage_settled_at is not null as settled from sessions.streaming_sessions where id = ${sessionId}`;
        if (s?.settled) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the session was not marked settled');
    } finally {
      await sql.end({ timeout: 5 });
    }
  }, 30_000);
});

describe('tenant administration', () => {
  it('disabling a tenant ends its running sessions (4403, FAILED)', async () => {
    const { c, sessionId } = await started({}, { apiKey: globexKey });
    c.audio(silence(0.5));
    try {
      expect((await t.client.post(`/api/v1/admin/tenants/${globex.id}/disable`, undefined, { apiKey: t.rootKey })).status).toBe(200);
      const { code, closed } = await finished(c);
      expect(code).toBe(4403);
      expect(closed).toMatchObject({ state: 'FAILED', failureReason: 'The tenant was disabled' });
    } finally {
      expect((await t.client.post(`/api/v1/admin/tenants/${globex.id}/enable`, undefined, { apiKey: t.rootKey })).status).toBe(200);
    }
    expect((await session(sessionId, { apiKey: globexKey })).body).toMatchObject({ state: 'FAILED', failureReason: 'The tenant was disabled' });
  }, 30_000);
});

describe('refusals before a session exists', () => {
  it('an invalid credential on the upgrade is 401 and opens nothing', async () => {
    await expect(AudioStreamClient.open(t.platform.url, { apiKey: 'vxg_nope' })).rejects.toMatchObject({ status: 401 });
  });

  it('a start before authentication is 4401; a start without speech:sessions:write is 4403', async () => {
    const anon = await AudioStreamClient.open(t.platform.url);
    anon.start();
    expect((await anon.closed).code).toBe(4401);
    const viewer = await open({ apiKey: viewerKey });
    viewer.start();
    expect((await viewer.closed).code).toBe(4403);
    expect(viewer.of('error')[0]).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('malformed messages close with 4400 and name the problem', async () => {
    const bad = await open();
    bad.start({ sampleRateHz: 8000 });
    expect((await bad.closed).code).toBe(4400);
    expect(String(bad.of('error')[0]?.message)).toMatch(/sampleRateHz/);
    const early = await open();
    early.audio(silence(0.1));
    expect((await early.closed).code).toBe(4400);
    const odd = await open();
    odd.start();
    await odd.next('started');
    odd.audio(Buffer.alloc(3));
    expect((await odd.closed).code).toBe(4400);
    expect((await finished(odd)).closed.state).toBe('FAILED');
    const unknown = await open();
    unknown.send({ type: 'hello' });
    expect((await unknown.closed).code).toBe(4400);
  });

  it('an unknown model alias is 4404 and creates no session', async () => {
    const before = await t.client.get<{ total: number }>('/api/v1/speech-services/streams', member());
    const c = await open();
    c.start({ model: 'no-such-alias' });
    expect((await c.closed).code).toBe(4404);
    expect((await t.client.get<{ total: number }>('/api/v1/speech-services/streams', member())).body.total).toBe(before.body.total);
  });
});

describe('engines and fallback', () => {
  it('the primary engine down: the alias fallback serves (usedFallback); without a fallback the session fails with a reason', async () => {
    const deadPort = await freePort();
    const model = await t.client.post('/api/v1/speech-services/admin/asr/models', {
      name: 'offline-engine', displayName: 'Offline', supportedLocales: ['en-US'], grpcTarget: `127.0.0.1:${deadPort}`, grpcTlsMode: 'PLAINTEXT', grpcDeadlineMs: 2000,
    }, owner());
    expect(model.status, model.text).toBe(201);
    const withFallback = await t.client.put('/api/v1/speech-services/admin/asr/model-aliases/with-fallback', {
      type: 'FAMILY', displayName: 'With fallback', resolvedModel: 'offline-engine', fallbackModel: 'pocketsphinx-en-us',
    }, owner());
    expect([200, 201]).toContain(withFallback.status);
    const noFallback = await t.client.put('/api/v1/speech-services/admin/asr/model-aliases/no-fallback', {
      type: 'FAMILY', displayName: 'No fallback', resolvedModel: 'offline-engine',
    }, owner());
    expect([200, 201]).toContain(noFallback.status);

    const { c, sessionId, startedMsg } = await started({ model: 'with-fallback' });
    expect(startedMsg).toMatchObject({ requestedModelAlias: 'with-fallback', resolvedModelName: 'pocketsphinx-en-us', usedFallback: true });
    c.stop();
    await finished(c);
    expect((await session(sessionId)).body).toMatchObject({ usedFallback: true, resolvedModelName: 'pocketsphinx-en-us', requestedModelAlias: 'with-fallback' });

    const f = await open();
    f.start({ model: 'no-fallback' });
    const { code, closed } = await finished(f);
    expect(code).toBe(1013);
    expect(closed.state).toBe('FAILED');
    const failed = await session(String(closed.sessionId));
    expect(failed.body).toMatchObject({ state: 'FAILED', requestedModelAlias: 'no-fallback', resolvedModelName: 'offline-engine' });
    expect(String(failed.body.failureReason)).toMatch(/engine unavailable/);
  }, 60_000);
});

describe('limits', () => {
  it('session starts per minute are limited per user (4429); refused starts are not counted', async () => {
    expect((await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamSessionStarts: 2 } } })).status).toBe(200);
    try {
      // the starts of earlier tests in this minute count too: fill the window, then one more is refused
      for (let i = 0; i < 2; i++) {
        const c = await open();
        c.start();
        const first = await Promise.race([c.next('started').then(() => 'started'), c.closed.then((x) => x.code)]);
        if (first === 'started') { c.stop(); await finished(c); }
      }
      const refused = await open();
      refused.start();
      expect((await refused.closed).code).toBe(4429);
      expect(refused.of('error')[0]).toMatchObject({ code: 'RATE_LIMITED', limit: 'speechServiceStreamSessionStarts' });
    } finally {
      await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamSessionStarts: null } } });
    }
  }, 30_000);

  it('concurrent sessions are limited per user and per tenant (speechServiceSessionMaxConcurrent)', async () => {
    expect((await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamMaxConcurrentSessions: 1 } } })).status).toBe(200);
    let a: Awaited<ReturnType<typeof started>> | null = null;
    try {
      a = await started();
      const b = await open();
      b.start();
      expect((await b.closed).code).toBe(4429);
      expect(b.of('error')[0]).toMatchObject({ limit: 'speechServiceStreamMaxConcurrentSessions' });
      // the tenant cap counts every user: the owner is refused while the member's session runs
      expect((await t.client.request('PUT', `/api/v1/admin/tenants/${acme.id}`, { ...owner(), body: { speechServiceSessionMaxConcurrent: 1 } })).status).toBe(200);
      const o = await open({ apiKey: ownerKey });
      o.start();
      expect((await o.closed).code).toBe(4429);
      expect(o.of('error')[0]).toMatchObject({ limit: 'speechServiceSessionMaxConcurrent' });
    } finally {
      if (a) {
        a.c.stop();
        await finished(a.c);
      }
      await t.client.request('PUT', `/api/v1/admin/tenants/${acme.id}`, { ...owner(), body: { speechServiceSessionMaxConcurrent: 50 } });
      await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamMaxConcurrentSessions: null } } });
    }
    // the slot is free again once the session ended
    const again = await started();
    again.c.stop();
    expect((await finished(again.c)).closed.state).toBe('FINISHED');
  }, 30_000);

  it('audio faster than speechServiceStreamMaxBytesPerSecond (beyond a 2-second burst) closes with 4413', async () => {
    const { c, sessionId } = await started();
    // 64,000 B/s by default, 128,000 bytes of burst: 5 s of audio at once is too much
    c.audio(silence(5));
    const { code, closed } = await finished(c);
    expect(code).toBe(4413);
    expect(closed.state).toBe('FAILED');
    expect(c.of('error')[0]).toMatchObject({ code: 'RATE_LIMITED', limit: 'speechServiceStreamMaxBytesPerSecond' });
    expect((await session(sessionId)).body.state).toBe('FAILED');
  });

  it('a session ends normally at its maximum duration', async () => {
    expect((await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamMaxSessionDurationSeconds: 1 } } })).status).toBe(200);
    try {
      const { c, sessionId, startedMsg } = await started();
      expect((startedMsg.limits as Json).maxDurationSeconds).toBe(1);
      await c.streamRealtime(silence(2));
      const { code, closed } = await finished(c);
      expect(code).toBe(1000);
      expect(closed).toMatchObject({ state: 'FINISHED', durationMilliseconds: 1000 });
      expect(c.of('error')[0]).toMatchObject({ code: 'SESSION_DURATION_LIMIT' });
      expect((await session(sessionId)).body.durationMilliseconds).toBe(1000);
    } finally {
      await limitOverride(memberId, { rateLimits: { 'speech-service': { speechServiceStreamMaxSessionDurationSeconds: null } } });
    }
  }, 30_000);

  it('a running session reserves its minutes a few at a time, not its whole duration limit', async () => {
    const minutes = async () => (await t.client.get<{ quotas: { quota: string; used: number; reserved: number }[] }>('/api/v1/usage', member())).body.quotas
      .find((q) => q.quota === 'monthlyTranscriptionMinutes');
    const before = await minutes();
    const { c } = await started();
    c.audio(silence(0.5));
    await new Promise((r) => setTimeout(r, 200));
    expect((await minutes())?.reserved).toBe((before?.reserved ?? 0) + 10);
    c.stop();
    await finished(c);
    const after = await minutes();
    expect(after?.reserved).toBe(before?.reserved);
    expect(after?.used).toBe((before?.used ?? 0) + 1);
  });

  it('the monthly minutes running out during a session end it with 4402, its audio up to the quota counted', async () => {
    const usage = await t.client.get<{ quotas: { quota: string; used: number }[] }>('/api/v1/usage', member());
    const used = usage.body.quotas.find((q) => q.quota === 'monthlyTranscriptionMinutes')?.used ?? 0;
    // one minute left, and a byte rate that lets a minute of audio through in about a second
    expect((await limitOverride(memberId, {
      quotas: { 'speech-service': { monthlyTranscriptionMinutes: used + 1 } },
      rateLimits: { 'speech-service': { speechServiceStreamMaxBytesPerSecond: 4_000_000 } },
    })).status).toBe(200);
    try {
      const { c, sessionId } = await started();
      for (let i = 0; i < 3; i++) c.audio(silence(30));
      const { code, closed } = await finished(c);
      expect(code).toBe(4402);
      expect(closed).toMatchObject({ state: 'FINISHED', durationMilliseconds: 60_000 });
      expect(c.of('error')[0]).toMatchObject({ code: 'QUOTA_EXCEEDED' });
      expect((await session(sessionId)).body.durationMilliseconds).toBe(60_000);
      const after = await t.client.get<{ quotas: { quota: string; used: number; remaining: number }[] }>('/api/v1/usage', member());
      expect(after.body.quotas.find((q) => q.quota === 'monthlyTranscriptionMinutes')).toMatchObject({ used: used + 1, remaining: 0 });
    } finally {
      await limitOverride(memberId, {
        quotas: { 'speech-service': { monthlyTranscriptionMinutes: null } },
        rateLimits: { 'speech-service': { speechServiceStreamMaxBytesPerSecond: null } },
      });
    }
  }, 60_000);

  it('no monthly transcription minutes left: the start is refused with 4402', async () => {
    expect((await limitOverride(memberId, { quotas: { 'speech-service': { monthlyTranscriptionMinutes: 0 } } })).status).toBe(200);
    try {
      const c = await open();
      c.start();
      expect((await c.closed).code).toBe(4402);
      expect(c.of('error')[0]).toMatchObject({ code: 'QUOTA_EXCEEDED' });
    } finally {
      await limitOverride(memberId, { quotas: { 'speech-service': { monthlyTranscriptionMinutes: null } } });
    }
  });
});

describe('the streaming sessions REST paths', () => {
  let mine: string[] = [];
  let ownersSession: string;

  beforeAll(async () => {
    mine = [];
    for (const opts of [{ itn: true }, { diarization: true }, {}]) {
      const { c, sessionId } = await started(opts);
      c.audio(silence(0.4));
      c.stop();
      await finished(c);
      mine.push(sessionId);
    }
    const o = await started({}, { apiKey: ownerKey });
    o.c.stop();
    await finished(o.c);
    ownersSession = o.sessionId;
  }, 60_000);

  it('the list shows the caller\'s own sessions, newest first, paginated with a total', async () => {
    const res = await t.client.get<{ sessions: Json[]; page: number; size: number; total: number }>('/api/v1/speech-services/streams?size=2', member());
    expect(res.status).toBe(200);
    expect(res.body.page).toBe(0);
    expect(res.body.size).toBe(2);
    expect(res.body.total).toBeGreaterThanOrEqual(3);
    expect(res.body.sessions.map((s) => s.sessionId)).toEqual([mine[2], mine[1]]);
    const all = await t.client.get<{ sessions: Json[] }>('/api/v1/speech-services/streams?size=100', member());
    expect(all.body.sessions.some((s) => s.sessionId === ownersSession)).toBe(false);
    const page1 = await t.client.get<{ sessions: Json[]; page: number }>('/api/v1/speech-services/streams?size=2&page=1', member());
    expect(page1.body.page).toBe(1);
    expect(page1.body.sessions[0]?.sessionId).toBe(mine[0]);
  });

  it('filters and the sort whitelist', async () => {
    const q = (s: string) => t.client.get<{ sessions: Json[]; total: number }>(`/api/v1/speech-services/streams?size=100&${s}`, member());
    expect((await q('itnRequested=true')).body.sessions.map((s) => s.sessionId)).toContain(mine[0]);
    expect((await q('itnRequested=true')).body.sessions.every((s) => s.itnRequested === true)).toBe(true);
    expect((await q('diarizationRequested=true')).body.sessions.every((s) => s.diarizationRequested === true)).toBe(true);
    expect((await q('recordingRequested=false')).body.sessions.every((s) => s.recordingRequested === false)).toBe(true);
    expect((await q('state=FINISHED')).body.sessions.every((s) => s.state === 'FINISHED')).toBe(true);
    expect((await q('state=FAILED')).body.sessions.every((s) => s.state === 'FAILED')).toBe(true);
    expect((await q('modelAlias=DEF')).body.sessions.every((s) => s.requestedModelAlias === 'default')).toBe(true);
    expect((await q('modelAlias=with-fall')).body.sessions.every((s) => s.requestedModelAlias === 'with-fallback')).toBe(true);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await q(`startedAfter=${encodeURIComponent(future)}`)).body.total).toBe(0);
    expect((await q(`startedBefore=${encodeURIComponent(future)}`)).body.total).toBeGreaterThanOrEqual(3);
    const asc = (await q('sort=startTime,asc')).body.sessions.map((s) => s.startTime as string);
    expect([...asc].sort()).toEqual(asc);
    const byDuration = (await q('sort=durationMilliseconds,desc')).body.sessions.map((s) => s.durationMilliseconds as number);
    expect([...byDuration].sort((a, b) => b - a)).toEqual(byDuration);
    for (const bad of ['sort=clientAddress,asc', 'size=101', 'size=0', 'page=-1', 'state=RUNNING', 'startedAfter=yesterday', 'itnRequested=maybe']) {
      const r = await q(bad);
      expect(r.status, bad).toBe(400);
    }
  });

  it('an administrator sees the whole tenant with scope=TENANT; a member may not', async () => {
    const admin = await t.client.get<{ sessions: Json[] }>('/api/v1/speech-services/streams?scope=TENANT&size=100', owner());
    expect(admin.status).toBe(200);
    const ids = admin.body.sessions.map((s) => s.sessionId);
    expect(ids).toContain(ownersSession);
    expect(ids).toContain(mine[0]);
    expect((await t.client.get('/api/v1/speech-services/streams?scope=TENANT', member())).status).toBe(403);
    // and reads one of the member's sessions; the member cannot read the owner's
    expect((await session(mine[0] as string, owner())).status).toBe(200);
    expect((await session(ownersSession, member())).status).toBe(403);
  });

  it('another tenant\'s sessions do not exist for the caller', async () => {
    const id = mine[0] as string;
    expect((await session(id, { apiKey: globexKey })).status).toBe(404);
    expect((await t.client.get(`/api/v1/speech-services/streams/${id}/segments`, { apiKey: globexKey })).status).toBe(404);
    expect((await t.client.get(`/api/v1/speech-services/streams/${id}/recording`, { apiKey: globexKey })).status).toBe(404);
    expect((await t.client.delete(`/api/v1/speech-services/streams/${id}`, { apiKey: globexKey })).status).toBe(404);
    expect((await t.client.post(`/api/v1/speech-services/streams/${id}/purge`, undefined, { apiKey: globexKey })).status).toBe(404);
    const list = await t.client.get<{ sessions: Json[] }>('/api/v1/speech-services/streams?scope=TENANT&size=100', { apiKey: globexKey });
    expect(list.body.sessions.some((s) => mine.includes(String(s.sessionId)))).toBe(false);
    expect((await session('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await session('not-a-uuid')).status).toBe(404);
  });

  it('scopes: reads need speech:sessions:read, deletes speech:sessions:delete; no credential is 401', async () => {
    expect((await t.client.get('/api/v1/speech-services/streams')).status).toBe(401);
    expect((await t.client.delete(`/api/v1/speech-services/streams/${mine[0]}`, { apiKey: viewerKey })).status).toBe(403);
    expect((await t.client.post(`/api/v1/speech-services/streams/${mine[0]}/purge`, undefined, { apiKey: viewerKey })).status).toBe(403);
    const noRead = await acme.apiKeyOf(memberBearer, ['speech:sessions:write']);
    expect((await t.client.get('/api/v1/speech-services/streams', { apiKey: noRead })).status).toBe(403);
  });

  it('purging content removes segments and recording but keeps the record; soft delete hides the session', async () => {
    const id = mine[2] as string;
    expect((await t.client.post(`/api/v1/speech-services/streams/${id}/purge`, undefined, member())).status).toBe(204);
    const segs = await t.client.get<Json[]>(`/api/v1/speech-services/streams/${id}/segments`, member());
    expect(segs.status).toBe(200);
    expect(segs.body).toEqual([]);
    expect((await session(id)).body.state).toBe('FINISHED');

    expect((await t.client.delete(`/api/v1/speech-services/streams/${id}`, member())).status).toBe(204);
    expect((await session(id)).status).toBe(404);
    expect((await t.client.delete(`/api/v1/speech-services/streams/${id}`, member())).status).toBe(404);
    const list = await t.client.get<{ sessions: Json[] }>('/api/v1/speech-services/streams?size=100', member());
    expect(list.body.sessions.some((s) => s.sessionId === id)).toBe(false);
  });

  it('a running session cannot be deleted or purged (409)', async () => {
    const { c, sessionId } = await started();
    try {
      expect((await t.client.delete(`/api/v1/speech-services/streams/${sessionId}`, member())).status).toBe(409);
      expect((await t.client.post(`/api/v1/speech-services/streams/${sessionId}/purge`, undefined, member())).status).toBe(409);
      expect((await session(sessionId)).body.state).toBe('ACTIVE');
    } finally {
      c.stop();
      await finished(c);
    }
  });

  it('purges have a stricter rate limit: the eleventh in a minute is 429 with Retry-After', async () => {
    const id = mine[1] as string;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await t.client.post(`/api/v1/speech-services/streams/${id}/purge`, undefined, { apiKey: ownerKey })).status);
    expect(statuses.slice(0, 10).every((s) => s === 204)).toBe(true);
    expect(statuses[10]).toBe(429);
    const limited = await t.client.post(`/api/v1/speech-services/streams/${id}/purge`, undefined, { apiKey: ownerKey });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('admin consoles read a tenant\'s sessions nested in the tenant', async () => {
    const q = 'query ($id: ID!) { tenant(id: $id) { name streamingSessions(size: 100) { total sessions { sessionId userId state } } } }';
    const r = await t.client.gql<{ tenant: { name: string; streamingSessions: { total: number; sessions: Json[] } } }>(q, { id: acme.id }, owner());
    expect(r.errors).toEqual([]);
    const ids = r.data?.tenant.streamingSessions.sessions.map((s) => s.sessionId) ?? [];
    expect(ids).toContain(ownersSession);
    expect(ids).toContain(mine[0]);
    const root = await t.client.gql<{ tenant: { streamingSessions: { total: number } } }>(q, { id: acme.id }, { apiKey: t.rootKey });
    expect(root.data?.tenant.streamingSessions.total).toBe(r.data?.tenant.streamingSessions.total);
    const other = await t.client.gql(q, { id: acme.id }, { apiKey: globexKey });
    expect(other.errors[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('GraphQL reads the same sessions', async () => {
    const r = await t.client.gql<{ streamingSession: Json; streamingSessions: { total: number } }>(
      'query ($id: ID!) { streamingSession(id: $id) { sessionId state userId language } streamingSessions(size: 1) { total } }', { id: mine[0] }, member());
    expect(r.errors).toEqual([]);
    expect(r.data?.streamingSession).toMatchObject({ sessionId: mine[0], state: 'FINISHED', userId: memberId, language: 'en-US' });
  });
});
