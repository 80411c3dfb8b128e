import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngineClient, EngineCallError, type EngineClient } from '../../src/grpc/client';
import type { GrpcClientConfig } from '../../src/grpc/config';
import type { EngineServiceMethods } from '../../src/grpc/types';
import { countBy, deadPort, startFakeEngine, verifyRequest, type FakeEngine } from './helpers';

const engines: FakeEngine[] = [];
const clients: { close(): void }[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const e of engines.splice(0)) await e.stop();
});

async function engine(name: string, host?: string, port?: number): Promise<FakeEngine> {
  const e = await startFakeEngine({ name, host, port });
  engines.push(e);
  return e;
}

function sentver(config: Partial<GrpcClientConfig> & { target: string }, lookup?: (h: string) => Promise<string[]>, dnsRefreshIntervalMs?: number) {
  const c = createEngineClient('SentenceVerification', { tlsMode: 'PLAINTEXT', deadlineMs: 2000, ...config }, undefined, {
    lookup,
    dnsRefreshIntervalMs,
  });
  clients.push(c);
  return c;
}

type SentverClient = EngineClient<EngineServiceMethods['SentenceVerification']>;

async function verifyMany(c: SentverClient, n: number): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < n; i++) names.push((await c.call('Verify', verifyRequest())).modelName);
  return names;
}

/** Calls until every engine answered once (connections up), then forgets those calls. */
async function warmUp(c: SentverClient, es: FakeEngine[]): Promise<void> {
  for (let i = 0; i < 50 && es.some((e) => e.calls.length === 0); i++) await c.call('Verify', verifyRequest());
  for (const e of es) e.calls.length = 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('engine client over real gRPC servers', () => {
  it('a single host:port target reaches the engine and returns typed responses', async () => {
    const a = await engine('a');
    const c = sentver({ target: a.address });
    const res = await c.call('Verify', verifyRequest('my voice is my password'));
    expect(res).toMatchObject({ score: 0.75, recognizedText: 'my voice is my password', speechDurationMs: 1200, modelName: 'a' });
    expect(await c.call('Health', {})).toEqual({ status: 'SERVING', message: 'a' });
    expect((await c.call('GetModelInfo', {})).supportedEncodings).toEqual(['PCM_S16LE']);
  });

  it('the speaker-embedding contract returns the embedding, quality and speech duration', async () => {
    const a = await engine('a');
    a.embeddingSize = 192;
    const c = createEngineClient('SpeakerEmbedding', { target: `static:///${a.address}`, tlsMode: 'PLAINTEXT', deadlineMs: 2000 });
    clients.push(c);
    const res = await c.call('Embed', { audio: Buffer.alloc(640), format: { encoding: 'PCM_S16LE', sampleRateHz: 16000 } });
    expect(res.embedding).toHaveLength(192);
    expect(res).toMatchObject({ quality: 0.8, speechDurationMs: 900 });
    expect((await c.call('GetModelInfo', {})).dimension).toBe(192);
  });

  it('round-robin spreads calls over both endpoints of an unprefixed comma list', async () => {
    const [a, b] = [await engine('a'), await engine('b')];
    const c = sentver({ target: `${a.address},${b.address}` });
    await warmUp(c, [a, b]);
    await verifyMany(c, 20);
    const counts = countBy([a, b]);
    expect(counts.a).toBeGreaterThanOrEqual(8);
    expect(counts.b).toBeGreaterThanOrEqual(8);
  });

  it('round-robin spreads calls over both endpoints of a static:/// list', async () => {
    const [a, b] = [await engine('a'), await engine('b')];
    const c = sentver({ target: `static:///${a.address},${b.address}` });
    await warmUp(c, [a, b]);
    await verifyMany(c, 20);
    const counts = countBy([a, b]);
    expect(counts.a).toBeGreaterThanOrEqual(8);
    expect(counts.b).toBeGreaterThanOrEqual(8);
  });

  it('static lists may name hosts: each entry is one round-robin endpoint', async () => {
    const [a, b] = [await engine('a'), await engine('b')];
    const lookup = async (h: string) => (h === 'localhost-a.test.invalid' || h === 'localhost-b.test.invalid' ? ['127.0.0.1'] : []);
    const c = sentver({ target: `static:///localhost-a.test.invalid:${a.port},localhost-b.test.invalid:${b.port}` }, lookup);
    await warmUp(c, [a, b]);
    await verifyMany(c, 20);
    expect(countBy([a, b])).toEqual({ a: 10, b: 10 });
  });

  it('an endpoint that never came up gets no calls: every call goes to the other', async () => {
    const a = await engine('a');
    const c = sentver({ target: `static:///127.0.0.1:${await deadPort()},${a.address}` });
    const names = await verifyMany(c, 10);
    expect(names).toEqual(Array(10).fill('a'));
  });

  it('an endpoint that goes down mid-traffic costs at most one failed call, then all go to the other', async () => {
    const [a, b] = [await engine('a'), await engine('b')];
    const c = sentver({ target: `${a.address},${b.address}` });
    await warmUp(c, [a, b]);
    await b.stop();
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => c.call('Verify', verifyRequest())).map(async (p) => (await p).modelName));
    // Sequential calls after the failure settle: also all on 'a'.
    const after = await verifyMany(c, 10);
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.length).toBeLessThanOrEqual(1);
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<string>).value)).toEqual(
      Array(10 - failed.length).fill('a'),
    );
    expect(after).toEqual(Array(10).fill('a'));
  });

  it('a deadline produces a clear DEADLINE_EXCEEDED error naming the target and the deadline', async () => {
    const a = await engine('slow');
    a.delayMs = 1500;
    const c = sentver({ target: a.address, deadlineMs: 150 });
    await c.call('Health', {}); // connected: the deadline below measures the call, not the connect
    const started = Date.now();
    const err = await c.call('Verify', verifyRequest()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(err).toBeInstanceOf(EngineCallError);
    const e = err as EngineCallError;
    expect(e.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(e.message).toBe(
      `SentenceVerification.Verify on gRPC target '${a.address}' did not answer within its deadline of 150 ms (DEADLINE_EXCEEDED)`,
    );
  });

  it('configured metadata arrives at the server on every call', async () => {
    const [a, b] = [await engine('a'), await engine('b')];
    const c = sentver({ target: `static:///${a.address},${b.address}`, metadata: { 'x-api-key': 'secret-1', 'x-tenant': 'acme' } });
    await verifyMany(c, 6);
    await c.call('Health', {});
    await c.call('GetModelInfo', {}, { metadata: { 'x-request-id': 'r1' } });
    const calls = [...a.calls, ...b.calls];
    expect(calls).toHaveLength(8);
    for (const call of calls) {
      expect(call.metadata.get('x-api-key')).toEqual(['secret-1']);
      expect(call.metadata.get('x-tenant')).toEqual(['acme']);
    }
    expect(calls.filter((x) => x.metadata.get('x-request-id')[0] === 'r1')).toHaveLength(1);
  });

  it('without an authority override :authority is the target; with one it is the override', async () => {
    const a = await engine('a');
    await sentver({ target: a.address }).call('Health', {});
    await sentver({ target: a.address, authority: 'engine.internal:50051' }).call('Health', {});
    expect(a.calls.map((x) => x.authority)).toEqual([a.address, 'engine.internal:50051']);
  });

  it('maxInboundMessageBytes below the response size gives a clear error', async () => {
    const a = await engine('big');
    a.embeddingSize = 4096; // ~16 KiB of floats
    const cfg = { target: a.address, tlsMode: 'PLAINTEXT' as const, deadlineMs: 2000 };
    const limited = createEngineClient('SpeakerEmbedding', { ...cfg, maxInboundMessageBytes: 4096 });
    const unlimited = createEngineClient('SpeakerEmbedding', { ...cfg, maxInboundMessageBytes: 1 << 20 });
    clients.push(limited, unlimited);
    const req = { audio: Buffer.alloc(64), format: { encoding: 'PCM_S16LE' as const, sampleRateHz: 16000 } };
    expect((await unlimited.call('Embed', req)).embedding).toHaveLength(4096);
    const err = await limited.call('Embed', req).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EngineCallError);
    expect((err as EngineCallError).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect((err as EngineCallError).message).toMatch(
      new RegExp(`^SpeakerEmbedding.Embed on gRPC target '${a.address}' returned a response larger than maxInboundMessageBytes \\(4096 bytes\\)`),
    );
    // Small responses still fit.
    expect((await limited.call('Health', {})).status).toBe('SERVING');
  });

  it('dns:/// targets are re-resolved periodically while the channel is healthy', async () => {
    // Two engines on the same port on two loopback addresses; the name first resolves to one.
    const a = await engine('a', '127.0.0.1');
    const b = await engine('b', '127.0.0.2', a.port);
    let answer = ['127.0.0.1'];
    const lookups: string[] = [];
    const lookup = async (h: string) => {
      lookups.push(h);
      return h === 'engines.test.invalid' ? answer : [];
    };
    const c = sentver({ target: `dns:///engines.test.invalid:${a.port}` }, lookup, 200);
    expect(await verifyMany(c, 5)).toEqual(Array(5).fill('a'));
    answer = ['127.0.0.1', '127.0.0.2'];
    // Keep the channel busy and healthy: no connection drops, so only the refresh timer re-resolves.
    const deadline = Date.now() + 5000;
    while (b.calls.length === 0 && Date.now() < deadline) {
      await c.call('Verify', verifyRequest());
      await sleep(20);
    }
    expect(b.calls.length).toBeGreaterThan(0);
    expect(lookups.length).toBeGreaterThanOrEqual(2);
    for (const e of [a, b]) e.calls.length = 0;
    await verifyMany(c, 20);
    expect(countBy([a, b])).toEqual({ a: 10, b: 10 });
  });

  it('a dns:/// name that does not resolve gives a clear UNAVAILABLE error', async () => {
    const c = sentver({ target: 'dns:///nothing.test.invalid:50051', deadlineMs: 1000 }, async () => {
      throw new Error('ENOTFOUND nothing.test.invalid');
    });
    const err = await c.call('Health', {}).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EngineCallError);
    expect((err as EngineCallError).code).toBe(grpc.status.UNAVAILABLE);
    expect((err as EngineCallError).message).toMatch(/^SentenceVerification.Health on gRPC target 'dns:\/\/\/nothing.test.invalid:50051' is unavailable: .*ENOTFOUND/);
  });

  it('close() ends the client: later calls are refused', async () => {
    const a = await engine('a');
    const c = sentver({ target: a.address });
    await c.call('Health', {});
    c.close();
    await expect(c.call('Health', {})).rejects.toThrow(/is closed/);
  });
});
