import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { connectRedis, createLogger, sessionChannel, StreamingSessionEvents, type Redis, type StreamingSessionEvent } from '@voxgate/kit';
import { ChannelHub } from '../../gateway/src/subscriptions/channels';
import { EventStream } from '../../gateway/src/subscriptions/event-stream';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { freePort, spawnPlatform, waitReady, type PlatformProcess } from '../support/processes';
import { createTenantWithIdp, type TenantWithIdp } from '../support/tenants';

/*
 * GraphQL subscriptions through the edge (docs/subscriptions.md). The producer of session events
 * (the audio WebSocket) is not part of these tests: session rows are written with SQL and events
 * are published with the kit's StreamingSessionEvents, exactly as the producer does.
 */

type Json = Record<string, unknown>;
interface GqlError { message: string; extensions?: { code?: string } }

// the embedded ASR engine is not needed here, and a second platform process would fight over its port
const ENV = { ASR_ENGINE_EMBEDDED: 'off' };

let t: TestPlatform;
let sql: postgres.Sql;
let redis: Redis;
let events: StreamingSessionEvents;
let acme: TenantWithIdp;
let globex: TenantWithIdp;
const clients: Client[] = [];

// acme: owner (tenant-admin: admin:sessions:read), mia and noah (members)
let ownerKey: string;
let ownerId: string;
let miaKey: string;
let miaBearer: string;
let miaId: string;
let miaNoReadKey: string;
let noahKey: string;
let noahId: string;
let gusId: string;

const EVENT_FIELDS = 'type sessionId userId at state failureReason partial { transcript startSeconds } segment { segmentIndex transcript startSeconds endSeconds words { word } }';
const SESSION_EVENTS = `subscription ($id: ID!) { streamingSessionEvents(sessionId: $id) { ${EVENT_FIELDS} } }`;
const LIFECYCLE = `subscription ($scope: StreamingSessionScope!) { streamingSessionLifecycle(scope: $scope) { type sessionId userId state } }`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000, tick?: () => Promise<unknown>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick?.();
    await sleep(50);
  }
}

function wsUrl(httpUrl: string): string {
  return `${httpUrl.replace(/^http/, 'ws')}/graphql`;
}

/** A graphql-ws client; `headers` go on the upgrade request (non-browser clients). */
interface ConnectOptions {
  url?: string;
  params?: Json;
  headers?: Record<string, string>;
  /** keep the socket open between subscriptions (graphql-ws's lazy client closes it when idle) */
  keepOpen?: boolean;
}

function connect(opts: ConnectOptions = {}): { client: Client; closed: Promise<{ code: number; reason: string }> } {
  let onClosed: (e: { code: number; reason: string }) => void = () => {};
  const closed = new Promise<{ code: number; reason: string }>((resolve) => { onClosed = resolve; });
  const headers = opts.headers ?? {};
  class HeaderWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) { super(address, protocols, { headers }); }
  }
  const client = createClient({
    url: opts.url ?? wsUrl(t.platform.url),
    webSocketImpl: HeaderWebSocket,
    connectionParams: opts.params,
    retryAttempts: 0,
    ...(opts.keepOpen ? { lazyCloseTimeout: 60_000 } : {}),
    on: { closed: (e) => onClosed(e as { code: number; reason: string }) },
  });
  clients.push(client);
  return { client, closed };
}

class Subscription {
  readonly results: FormattedExecutionResult<Json, unknown>[] = [];
  error: unknown = null;
  completed = false;
  readonly finished: Promise<void>;
  private readonly stop: () => void;

  constructor(client: Client, query: string, variables: Json = {}) {
    let done: () => void = () => {};
    this.finished = new Promise((resolve) => { done = resolve; });
    this.stop = client.subscribe<Json>({ query, variables }, {
      next: (r) => { this.results.push(r); },
      error: (e) => { this.error = e; done(); },
      complete: () => { this.completed = true; done(); },
    });
  }

  /** the payloads of the root field, in arrival order */
  get events(): Json[] {
    return this.results.map((r) => Object.values(r.data ?? {})[0] as Json);
  }

  /** graphql-ws's `error` message for this operation: the GraphQL errors */
  get errors(): GqlError[] {
    return Array.isArray(this.error) ? (this.error as GqlError[]) : [];
  }

  async settle(timeoutMs = 10_000): Promise<this> {
    await Promise.race([this.finished, sleep(timeoutMs).then(() => { throw new Error(`subscription did not end: ${JSON.stringify(this.results)}`); })]);
    return this;
  }

  async waitFor(n: number, timeoutMs = 10_000): Promise<Json[]> {
    await until(`${n} events (have ${JSON.stringify(this.events)}, error ${JSON.stringify(this.error)})`, () => this.results.length >= n || this.error !== null, timeoutMs);
    return this.events;
  }

  unsubscribe(): void { this.stop(); }
}

async function numsub(channel: string): Promise<number> {
  const r = (await redis.pubsub('NUMSUB', channel)) as [string, number | string];
  return Number(r[1]);
}

/** Session streams: the edge listens once Redis counts a subscriber on the session's channel. */
async function listening(sessionId: string, subscribers = 1): Promise<void> {
  await until(`a subscriber on ${sessionId}`, async () => (await numsub(sessionChannel(sessionId))) >= subscribers);
}

async function insertSession(tenantId: string, userId: string, fields: { state?: string; segmentCount?: number; failureReason?: string | null; ended?: boolean } = {}): Promise<string> {
  const id = randomUUID();
  const state = fields.state ?? 'ACTIVE';
  await sql`
    insert into sessions.streaming_sessions
      (id, tenant_id, user_id, state, requested_model_alias, resolved_model_name, language, client_address, segment_count, failure_reason, end_time)
    values
      (${id}, ${tenantId}, ${userId}, ${state}, 'default', 'pocketsphinx-en-us', 'en-US', '127.0.0.1', ${fields.segmentCount ?? 0},
       ${fields.failureReason ?? null}, ${fields.ended ? new Date('2030-01-02T03:04:05.000Z') : null})`;
  return id;
}

const base = (sessionId: string, tenantId: string, userId: string) => ({ sessionId, tenantId, userId, at: new Date().toISOString() });
const partial = (s: string, tn: string, u: string, transcript: string): StreamingSessionEvent => ({ ...base(s, tn, u), type: 'PARTIAL', partial: { transcript, startSeconds: 0 } });
const segment = (s: string, tn: string, u: string, index: number, transcript: string): StreamingSessionEvent => ({
  ...base(s, tn, u), type: 'SEGMENT',
  segment: {
    id: randomUUID(), segmentIndex: index, transcript, confidence: 0.9, startSeconds: index, endSeconds: index + 1, createdAt: new Date().toISOString(),
    words: transcript.split(' ').map((word, i) => ({ word, startSeconds: index + i * 0.1, endSeconds: index + i * 0.1 + 0.1, confidence: 0.9, speakerTag: null })),
  },
});
const started = (s: string, tn: string, u: string): StreamingSessionEvent => ({ ...base(s, tn, u), type: 'STARTED', state: 'ACTIVE' });
const ended = (s: string, tn: string, u: string, state: 'FINISHED' | 'CANCELLED' | 'FAILED' = 'FINISHED'): StreamingSessionEvent => ({
  ...base(s, tn, u), type: 'ENDED', state, failureReason: null,
});

async function userIdOf(key: { apiKey?: string; bearer?: string }): Promise<string> {
  const me = await t.client.get<{ id: string }>('/api/v1/users/me', key);
  if (me.status !== 200) throw new Error(`me: ${me.status} ${me.text}`);
  return me.body.id;
}

beforeAll(async () => {
  t = await startTestPlatform(ENV);
  sql = postgres(t.databaseUrl, { max: 2, onnotice: () => {} });
  redis = connectRedis(t.redisUrl);
  events = new StreamingSessionEvents(redis);
  const scopesOf = async (slug: string) =>
    (await t.client.gql<{ roles: { slug: string; scopes: string[] }[] }>('{ roles { slug scopes } }', {}, { apiKey: t.rootKey })).data?.roles.find((r) => r.slug === slug)?.scopes ?? [];
  const [adminScopes, memberScopes] = await Promise.all([scopesOf('tenant-admin'), scopesOf('member')]);

  acme = await createTenantWithIdp(t, [
    { username: 'owner', password: 'pw-owner' }, { username: 'mia', password: 'pw-mia' }, { username: 'noah', password: 'pw-noah' },
  ]);
  const ownerBearer = (await acme.login('owner', 'pw-owner')).access_token;
  ownerKey = await acme.apiKeyOf(ownerBearer, adminScopes);
  miaBearer = (await acme.login('mia', 'pw-mia')).access_token;
  miaKey = await acme.apiKeyOf(miaBearer, memberScopes);
  miaNoReadKey = await acme.apiKeyOf(miaBearer, memberScopes.filter((s) => s !== 'speech:sessions:read'));
  const noahBearer = (await acme.login('noah', 'pw-noah')).access_token;
  noahKey = await acme.apiKeyOf(noahBearer, memberScopes);
  [ownerId, miaId, noahId] = await Promise.all([userIdOf({ apiKey: ownerKey }), userIdOf({ apiKey: miaKey }), userIdOf({ apiKey: noahKey })]);

  globex = await createTenantWithIdp(t, [{ username: 'gus', password: 'pw-gus' }]);
  gusId = await userIdOf({ bearer: (await globex.login('gus', 'pw-gus')).access_token });
}, 120_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  redis?.disconnect();
  await sql?.end({ timeout: 5 });
  await acme?.close();
  await globex?.close();
  await t?.close();
});

describe('authentication', () => {
  it('a connection without valid credentials is closed with 4401', async () => {
    const ways: ConnectOptions[] = [
      {},
      { params: { apiKey: 'vxg_not-a-key' } },
      { params: { authorization: 'Basic abc' } },
      { headers: { authorization: 'Bearer not-a-jwt' } },
    ];
    for (const opts of ways) {
      const { client, closed } = connect(opts);
      const sub = await new Subscription(client, SESSION_EVENTS, { id: randomUUID() }).settle();
      expect((await closed).code, JSON.stringify(opts)).toBe(4401);
      expect((sub.error as { code?: number }).code).toBe(4401);
      expect(sub.results).toEqual([]);
    }
  });

  it('credentials are accepted in the connection_init payload (apiKey, accessToken, authorization) and in the upgrade headers (X-API-Key, Authorization)', async () => {
    const sessionId = await insertSession(acme.id, miaId, { state: 'FINISHED', ended: true });
    const ways: ConnectOptions[] = [
      { params: { apiKey: miaKey } },
      { params: { accessToken: miaBearer } },
      { params: { authorization: `Bearer ${miaBearer}` } },
      { headers: { 'x-api-key': miaKey } },
      { headers: { authorization: `Bearer ${miaBearer}` } },
    ];
    for (const opts of ways) {
      const sub = await new Subscription(connect(opts).client, SESSION_EVENTS, { id: sessionId }).settle();
      expect(sub.error, JSON.stringify(opts)).toBeNull();
      expect(sub.events.map((e) => e.type)).toEqual(['ENDED']);
    }
  });

  it('revoking the API key makes the next subscribe on an open connection fail with UNAUTHENTICATED', async () => {
    const miaBearerNow = (await acme.login('mia', 'pw-mia')).access_token;
    const created = await t.client.post<{ id: string; key: string }>('/api/v1/api-keys', { name: 'to revoke', scopes: ['speech:sessions:read'] }, { bearer: miaBearerNow });
    expect(created.status, created.text).toBe(201);
    const sessionId = await insertSession(acme.id, miaId, { state: 'FINISHED', ended: true });
    let open = true;
    const { client, closed } = connect({ params: { apiKey: created.body.key }, keepOpen: true });
    void closed.then(() => { open = false; });
    const before = await new Subscription(client, SESSION_EVENTS, { id: sessionId }).settle();
    expect(before.events.map((e) => e.type)).toEqual(['ENDED']);

    expect((await t.client.delete(`/api/v1/api-keys/${created.body.id}`, { bearer: miaBearerNow })).status).toBe(204);
    const after = await new Subscription(client, SESSION_EVENTS, { id: sessionId }).settle();
    expect(after.results).toEqual([]);
    expect(after.errors.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    // refused on the connection that was opened with the key, which stays open
    expect(open).toBe(true);
  });
});

describe('authorization', () => {
  it('a caller without speech:sessions:read gets FORBIDDEN', async () => {
    const sessionId = await insertSession(acme.id, miaId);
    const { client } = connect({ params: { apiKey: miaNoReadKey } });
    for (const [query, variables] of [[SESSION_EVENTS, { id: sessionId }], [LIFECYCLE, { scope: 'OWN' }]] as const) {
      const sub = await new Subscription(client, query, variables).settle();
      expect(sub.results).toEqual([]);
      expect(sub.errors.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
      expect(sub.errors[0]?.message).toContain('speech:sessions:read');
    }
  });

  it('a session of another tenant (or an unknown one) is NOT_FOUND', async () => {
    const foreign = await insertSession(globex.id, gusId);
    const { client } = connect({ params: { apiKey: ownerKey } });
    for (const id of [foreign, randomUUID(), 'not-a-uuid']) {
      const sub = await new Subscription(client, SESSION_EVENTS, { id }).settle();
      expect(sub.results, id).toEqual([]);
      expect(sub.errors.map((e) => e.extensions?.code), id).toEqual(['NOT_FOUND']);
    }
    // nothing is left listening for the refused subscriptions
    await until('the channel to be released', async () => (await numsub(sessionChannel(foreign))) === 0);
  });

  it("another user's session in the same tenant is FORBIDDEN for a member and readable by a tenant admin (admin:sessions:read)", async () => {
    const noahs = await insertSession(acme.id, noahId);
    const member = await new Subscription(connect({ params: { apiKey: miaKey } }).client, SESSION_EVENTS, { id: noahs }).settle();
    expect(member.errors.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);

    const admin = new Subscription(connect({ params: { apiKey: ownerKey } }).client, SESSION_EVENTS, { id: noahs });
    await listening(noahs);
    await events.publish(segment(noahs, acme.id, noahId, 0, 'hello there'));
    await events.publish(ended(noahs, acme.id, noahId));
    await admin.settle();
    expect(admin.error).toBeNull();
    expect(admin.events.map((e) => e.type)).toEqual(['SEGMENT', 'ENDED']);
  });

  it('queries and mutations are refused on the socket with a pointer to HTTP POST /graphql', async () => {
    const { client } = connect({ params: { apiKey: miaKey } });
    for (const query of ['{ streamingSessions { total } }', 'mutation { deleteStreamingSession(id: "x") }']) {
      const sub = await new Subscription(client, query).settle();
      expect(sub.results).toEqual([]);
      expect(sub.errors[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(sub.errors[0]?.message).toContain('HTTP POST /graphql');
    }
    const invalid = await new Subscription(client, 'subscription { streamingSessionEvents(sessionId: "x") { nope } }').settle();
    expect(invalid.errors[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});

describe('session events', () => {
  it('PARTIAL, SEGMENT and ENDED events arrive in order and the subscription completes after ENDED', async () => {
    const sessionId = await insertSession(acme.id, miaId);
    const sub = new Subscription(connect({ params: { apiKey: miaKey } }).client, SESSION_EVENTS, { id: sessionId });
    await listening(sessionId);
    const sent = [
      partial(sessionId, acme.id, miaId, 'hel'),
      partial(sessionId, acme.id, miaId, 'hello wor'),
      segment(sessionId, acme.id, miaId, 0, 'hello world'),
      partial(sessionId, acme.id, miaId, 'again'),
      segment(sessionId, acme.id, miaId, 1, 'again and again'),
      ended(sessionId, acme.id, miaId),
      // after ENDED nothing more is delivered: the subscription is complete
      partial(sessionId, acme.id, miaId, 'too late'),
    ];
    for (const e of sent) await events.publish(e);
    await sub.settle();
    expect(sub.completed).toBe(true);
    expect(sub.error).toBeNull();
    expect(sub.events.map((e) => e.type)).toEqual(['PARTIAL', 'PARTIAL', 'SEGMENT', 'PARTIAL', 'SEGMENT', 'ENDED']);
    expect(sub.events[1]).toMatchObject({ sessionId, userId: miaId, partial: { transcript: 'hello wor', startSeconds: 0 }, segment: null, state: null });
    expect(sub.events[4]).toMatchObject({ segment: { segmentIndex: 1, transcript: 'again and again', words: [{ word: 'again' }, { word: 'and' }, { word: 'again' }] }, partial: null });
    expect(sub.events[5]).toMatchObject({ type: 'ENDED', state: 'FINISHED', failureReason: null });
    // the edge released the channel once the stream ended
    await until('the channel to be released', async () => (await numsub(sessionChannel(sessionId))) === 0);
  });

  it('selecting session { state segmentCount } resolves the record through the gateway (aliases and fragments included)', async () => {
    const sessionId = await insertSession(acme.id, miaId, { segmentCount: 3 });
    const query = `subscription ($id: ID!) { streamingSessionEvents(sessionId: $id) {
      type session { state segmentCount ...More n: userId } } }
      fragment More on SpeechServiceSession { language requestedModelAlias }`;
    const sub = new Subscription(connect({ params: { apiKey: miaKey } }).client, query, { id: sessionId });
    await listening(sessionId);
    await events.publish(segment(sessionId, acme.id, miaId, 0, 'one'));
    await sub.waitFor(1);
    await sql`update sessions.streaming_sessions set state = 'FINISHED', segment_count = 4, end_time = now() where id = ${sessionId}`;
    await events.publish(ended(sessionId, acme.id, miaId));
    await sub.settle();
    expect(sub.results.flatMap((r) => r.errors ?? [])).toEqual([]);
    expect(sub.events).toEqual([
      { type: 'SEGMENT', session: { state: 'ACTIVE', segmentCount: 3, language: 'en-US', requestedModelAlias: 'default', n: miaId } },
      { type: 'ENDED', session: { state: 'FINISHED', segmentCount: 4, language: 'en-US', requestedModelAlias: 'default', n: miaId } },
    ]);
  });

  it('an already-ended session yields one ENDED event built from the record, and completes', async () => {
    const sessionId = await insertSession(acme.id, miaId, { state: 'FAILED', failureReason: 'engine unavailable', ended: true });
    const sub = await new Subscription(connect({ params: { apiKey: miaKey } }).client, SESSION_EVENTS, { id: sessionId }).settle();
    expect(sub.completed).toBe(true);
    expect(sub.events).toEqual([{
      type: 'ENDED', sessionId, userId: miaId, at: '2030-01-02T03:04:05.000Z', state: 'FAILED', failureReason: 'engine unavailable', partial: null, segment: null,
    }]);
    await until('the channel to be released', async () => (await numsub(sessionChannel(sessionId))) === 0);
  });

  it('subscribers of one channel share one Redis subscription of the edge, released when the last one leaves', async () => {
    const sessionId = await insertSession(acme.id, miaId);
    const a = new Subscription(connect({ params: { apiKey: miaKey } }).client, SESSION_EVENTS, { id: sessionId });
    const b = new Subscription(connect({ params: { apiKey: ownerKey } }).client, SESSION_EVENTS, { id: sessionId });
    await listening(sessionId);
    // both are listening once each sees an event; Redis still counts one subscriber (the edge's connection)
    await until('both subscribers to receive', () => a.results.length > 0 && b.results.length > 0, 10_000,
      () => events.publish(partial(sessionId, acme.id, miaId, 'probe')));
    expect(await numsub(sessionChannel(sessionId))).toBe(1);
    a.unsubscribe();
    await sleep(200);
    expect(await numsub(sessionChannel(sessionId))).toBe(1);
    b.unsubscribe();
    await until('the channel to be released', async () => (await numsub(sessionChannel(sessionId))) === 0);
  });
});

describe('lifecycle', () => {
  /** Lifecycle streams share the tenant channel: a subscriber is live once it sees a probe session's STARTED. */
  async function live(subs: Subscription[], probeUserId: string): Promise<string> {
    const probe = randomUUID();
    await until('lifecycle subscribers to be live', () => subs.every((s) => s.events.some((e) => e.sessionId === probe)), 10_000,
      () => events.publish(started(probe, acme.id, probeUserId)));
    return probe;
  }

  it("lifecycle OWN sees only STARTED and ENDED of the caller's sessions", async () => {
    const own = new Subscription(connect({ params: { apiKey: miaKey } }).client, LIFECYCLE, { scope: 'OWN' });
    const probe = await live([own], miaId);
    const mine = randomUUID();
    const noahs = randomUUID();
    await events.publish(started(noahs, acme.id, noahId));
    await events.publish(started(mine, acme.id, miaId));
    await events.publish(partial(mine, acme.id, miaId, 'not a lifecycle event'));
    await events.publish(segment(mine, acme.id, miaId, 0, 'nor this'));
    await events.publish(ended(noahs, acme.id, noahId));
    await events.publish(ended(mine, acme.id, miaId, 'CANCELLED'));
    await events.publish(started(randomUUID(), globex.id, gusId));
    const sentinel = randomUUID();
    await events.publish(started(sentinel, acme.id, miaId));
    await until('the sentinel', () => own.events.some((e) => e.sessionId === sentinel));
    const seen = own.events.filter((e) => e.sessionId !== probe && e.sessionId !== sentinel);
    expect(seen).toEqual([
      { type: 'STARTED', sessionId: mine, userId: miaId, state: 'ACTIVE' },
      { type: 'ENDED', sessionId: mine, userId: miaId, state: 'CANCELLED' },
    ]);
    // lifecycle streams do not end with a session
    expect(own.completed).toBe(false);
  });

  it("lifecycle TENANT needs admin:sessions:read and sees every user's sessions of the tenant", async () => {
    const refused = await new Subscription(connect({ params: { apiKey: miaKey } }).client, LIFECYCLE, { scope: 'TENANT' }).settle();
    expect(refused.errors.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
    expect(refused.errors[0]?.message).toContain('admin:sessions:read');

    const tenant = new Subscription(connect({ params: { apiKey: ownerKey } }).client, LIFECYCLE, { scope: 'TENANT' });
    const probe = await live([tenant], ownerId);
    const mias = randomUUID();
    const noahs = randomUUID();
    await events.publish(started(mias, acme.id, miaId));
    await events.publish(started(noahs, acme.id, noahId));
    await events.publish(started(randomUUID(), globex.id, gusId));
    await events.publish(ended(noahs, acme.id, noahId));
    await events.publish(ended(mias, acme.id, miaId));
    const sentinel = randomUUID();
    await events.publish(started(sentinel, acme.id, ownerId));
    await until('the sentinel', () => tenant.events.some((e) => e.sessionId === sentinel));
    expect(tenant.events.filter((e) => e.sessionId !== probe && e.sessionId !== sentinel).map((e) => `${e.type}:${e.userId === miaId ? 'mia' : e.userId === noahId ? 'noah' : e.userId}`))
      .toEqual(['STARTED:mia', 'STARTED:noah', 'ENDED:noah', 'ENDED:mia']);
  });
});

describe('several edge processes', () => {
  let second: PlatformProcess | undefined;
  let dataDir: string;

  afterAll(async () => {
    await second?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an event published behind one edge process reaches a subscriber connected to another edge process', async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-sub-edge-'));
    const port = await freePort();
    // a second platform process on the same database and Redis (its own dev IdP off: it would
    // re-point the system tenant's provider)
    second = spawnPlatform({
      ...ENV, DATABASE_URL: t.databaseUrl, REDIS_URL: t.redisUrl, PORT: String(port), DATA_DIR: dataDir,
      BOOTSTRAP_API_KEY: t.rootKey, DEV_IDP_ENABLED: 'false',
    });
    const secondUrl = `http://127.0.0.1:${port}`;
    await waitReady(`${secondUrl}/readyz`, second);

    const sessionId = await insertSession(acme.id, miaId);
    const query = `subscription ($id: ID!) { streamingSessionEvents(sessionId: $id) { type segment { transcript } session { state } } }`;
    const onFirst = new Subscription(connect({ params: { apiKey: miaKey } }).client, query, { id: sessionId });
    const onSecond = new Subscription(connect({ url: wsUrl(secondUrl), params: { apiKey: miaKey } }).client, query, { id: sessionId });
    // each edge process holds its own subscriber connection: Redis counts two
    await listening(sessionId, 2);
    // the test process stands in for the producer, which runs in whichever edge holds the audio socket
    await events.publish(segment(sessionId, acme.id, miaId, 0, 'across processes'));
    await events.publish(ended(sessionId, acme.id, miaId));
    await Promise.all([onFirst.settle(), onSecond.settle()]);
    const expected = [
      { type: 'SEGMENT', segment: { transcript: 'across processes' }, session: { state: 'ACTIVE' } },
      { type: 'ENDED', segment: null, session: { state: 'ACTIVE' } },
    ];
    expect(onSecond.events).toEqual(expected);
    expect(onFirst.events).toEqual(expected);
  }, 120_000);
});

describe('slow subscribers', () => {
  const ev = (type: 'PARTIAL' | 'SEGMENT' | 'ENDED', i: number): StreamingSessionEvent =>
    type === 'PARTIAL' ? partial('s', 't', 'u', `p${i}`) : type === 'SEGMENT' ? segment('s', 't', 'u', i, `s${i}`) : ended('s', 't', 'u');

  it('past 200 queued events the oldest PARTIAL results are dropped, never SEGMENT or ENDED', async () => {
    const stream = new EventStream({ accept: () => true, completeOnEnded: true });
    for (let i = 0; i < 300; i++) stream.push(ev(i % 3 === 0 ? 'SEGMENT' : 'PARTIAL', i));
    stream.push(ev('ENDED', 300));
    const out: StreamingSessionEvent[] = [];
    for await (const e of stream) out.push(e);
    expect(out.length).toBeLessThanOrEqual(201);
    expect(out.filter((e) => e.type === 'SEGMENT')).toHaveLength(100);
    expect(out.at(-1)?.type).toBe('ENDED');
    // what survived is the newest PARTIALs, in order
    const partials = out.filter((e) => e.type === 'PARTIAL').map((e) => (e.type === 'PARTIAL' ? Number(e.partial.transcript.slice(1)) : 0));
    expect(partials).toEqual([...partials].sort((x, y) => x - y));
    expect(partials.at(-1)).toBe(299);
  });

  it('a subscriber hopelessly behind on events that cannot be dropped gets an error instead of unbounded memory', async () => {
    const stream = new EventStream({ accept: () => true, completeOnEnded: true, softLimit: 5, hardLimit: 20 });
    for (let i = 0; i < 21; i++) stream.push(ev('SEGMENT', i));
    await expect(stream.next()).rejects.toMatchObject({ extensions: { code: 'UNAVAILABLE' } });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });
});

describe('the event bus of an edge', () => {
  it('a burst of first subscriptions on a fresh edge all start, and each receives its events', async () => {
    const hub = new ChannelHub(t.redisUrl, createLogger('test', 'silent'));
    try {
      const ids = Array.from({ length: 30 }, () => randomUUID());
      const got = new Map<string, number>();
      // issued while the hub's connection is being opened, as concurrent clients arrive
      const pending: Promise<() => void>[] = [];
      for (const id of ids) {
        pending.push(hub.listen(sessionChannel(id), () => got.set(id, (got.get(id) ?? 0) + 1)));
        await new Promise((r) => setImmediate(r));
      }
      const removers = await Promise.all(pending);
      const events = new StreamingSessionEvents(redis);
      for (const id of ids) await events.publish(ended(id, 't', 'u'));
      for (let i = 0; i < 50 && got.size < ids.length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(got.size).toBe(ids.length);
      for (const remove of removers) remove();
      expect(hub.channelCount).toBe(0);
    } finally {
      await hub.close();
    }
  });
});
