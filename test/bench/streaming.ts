/**
 * Suite "streaming": what streaming recognition costs the platform itself.
 *
 * The platform runs as its own process (as `pnpm start` runs it) on a fresh database; the engine is
 * the ack engine (./ack-engine.ts: no recognition, one "ack" segment whenever the client's audio
 * goes from sound to an all-zero frame), registered as the tenant's default ASR alias through the
 * REST administration API. N sessions stream at real time over the audio WebSocket
 * (docs/streaming.md), each with a GraphQL subscription to its events (docs/subscriptions.md), and
 * the suite measures, for increasing N: whether frames keep flowing without a backlog and finals
 * keep arriving, the latency from the end of an utterance (the client sends its first silent frame)
 * to the final on the WebSocket and on the subscription, the part the platform adds (receive time
 * minus the engine's emit time, one host clock), the CPU the edge uses and its memory per session.
 * Then the same latency with the reference pocketsphinx engine on flite speech, through the
 * platform and straight to the engine.
 *
 * Client, edge, Postgres, Redis and engines share this machine's cores: the load generator is
 * part of what is measured against, so the CPU each side used is printed too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { modelInstalled } from '@voxgate/engine-asr';
import { createEngineClient } from '@voxgate/kit/grpc';
import { generateApiKey } from '@voxgate/tenancy/key-format';
import { EdgeClient } from '../support/http';
import { freePort, spawnPlatform, waitReady, type PlatformProcess } from '../support/processes';
import type { AckEmit, AckReply, AckRequest, AckStats } from './ack-engine';
import { BENCH_SECONDS, cpuSeconds, epochMs, fmt, machineBusySeconds, machineNote, rssMb, serverPid, sharedServices, sleep, summarize, table } from './common';
import { BYTES_PER_SECOND, FORMAT, SENTENCES, fliteAvailable, synthesize } from '../support/speech';
import { Driver, SubscriptionPool, UtteranceLog, WsSession, taggedFrame, type DrivenSession, type Script } from './ws-load';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

/** audio frame length; 100 ms keeps the client's share of the CPU small (BENCH_FRAME_MS=20 for browser-like frames) */
const FRAME_MS = Number(process.env.BENCH_FRAME_MS ?? 100);
const FRAME_BYTES = (BYTES_PER_SECOND * FRAME_MS) / 1000;
/** an utterance every 2 s: 1.2 s of sound, then 0.8 s of silence */
const PERIOD_MS = 2_000;
const SOUND_MS = 1_200;
/** one measurement window (each session ends an utterance every PERIOD_MS within it) */
const WINDOW_SECONDS = Math.max(4, BENCH_SECONDS * 0.6);
/** finals of utterances ended in a window may arrive this long after it */
const GRACE_MS = 1_500;
/** silence before a new session's script, so its subscription is in place before its first final */
const SUBSCRIBE_LEAD_MS = 500;
/** concurrent sessions, grown step by step (sessions stay open from one step to the next) */
const STEPS = (process.env.BENCH_STREAM_SESSIONS ?? '100,200,300,400,500,600,800,1000,1200,1600').split(',').map(Number).filter((n) => n > 0);
/** the sweep stops starting new steps after this long */
const SWEEP_BUDGET_MS = Number(process.env.BENCH_STREAM_BUDGET_SECONDS ?? Math.max(60, BENCH_SECONDS * 15)) * 1000;
const WARMUP_SESSIONS = 20;
const OPEN_CONCURRENCY = 25;
const SUBSCRIPTIONS_PER_CONNECTION = 50;
/** a step holds when: */
const HOLD = { finalsPercent: 99, e2eP95Ms: 1_000, ingestP95Ms: 250, ingestGrowthMs: 100 };
const ADDED_TARGET_P95_MS = 50;
const ALIAS = 'bench-ack';
const PS_ALIAS = 'bench-pocketsphinx';
const PS_SESSIONS = 3;

// ------------------------------------------------------------------------------------------------
// processes

interface AckProcess {
  address: string;
  pid: number | undefined;
  emits(): Promise<AckEmit[]>;
  /** counters; `reset` zeroes the gap counters after reading */
  stats(reset?: boolean): Promise<AckStats>;
  stop(): Promise<void>;
}

async function spawnAckEngine(): Promise<AckProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'ack-engine.ts')], {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', ACK_CONNECTION_WINDOW_BYTES: process.env.BENCH_ACK_CONNECTION_WINDOW_BYTES ?? '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiters: ((m: AckReply) => void)[] = [];
  child.on('message', (m: AckReply) => waiters.shift()?.(m));
  const next = () => new Promise<AckReply>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the ack engine did not answer')), 30_000);
    waiters.push((m) => { clearTimeout(timer); resolve(m); });
  });
  const ready = await next();
  if (ready.type !== 'ready') throw new Error('the ack engine did not start');
  const ask = async <T extends AckReply['type']>(req: AckRequest, type: T): Promise<Extract<AckReply, { type: T }>> => {
    const answer = next();
    child.send(req);
    const m = await answer;
    if (m.type !== type) throw new Error(`ack engine answered ${m.type} to ${req.type}`);
    return m as Extract<AckReply, { type: T }>;
  };
  return {
    address: `127.0.0.1:${ready.port}`,
    pid: child.pid,
    emits: async () => (await ask({ type: 'emits' }, 'emits')).emits,
    stats: async (reset = false) => (await ask({ type: 'stats', reset }, 'stats')).stats,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.disconnect();
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(5_000)]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** The reference engine as its own process (engines/asr/src/main.ts), as the platform embeds it. */
async function spawnPocketsphinx(maxDecoders: number): Promise<{ address: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'engines/asr/src/main.ts')], {
    cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ASR_MAX_DECODERS: String(maxDecoders) }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`pocketsphinx engine did not start:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening')) { clearTimeout(timer); resolve(); }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`pocketsphinx engine exited (${code}):\n${out}`)); });
  });
  return { address: `127.0.0.1:${port}`, child, stop: () => stopChild(child) };
}

/** Every process below this one (edge, Postgres, Redis, engines), by pid. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent) if (pp === p) { out.push(c); walk(c); }
  };
  walk(root);
  return out;
}

function treeOf(pid: number | undefined): number[] {
  return pid ? [pid, ...descendants(pid)] : [];
}

// ------------------------------------------------------------------------------------------------
// audio scripts

/** A frame of sound: a 220 Hz tone with a little noise, never all-zero. */
function soundFrame(): Buffer {
  const b = Buffer.alloc(FRAME_BYTES);
  for (let i = 0; i < FRAME_BYTES / 2; i++) {
    const v = Math.round(4000 * Math.sin((2 * Math.PI * 220 * i) / 16_000) + (Math.random() - 0.5) * 400);
    b.writeInt16LE(v === 0 ? 1 : v, i * 2);
  }
  return b;
}

/** The ack script, one utterance per pass: 1.2 s of sound, 0.8 s of silence; the first sound frame carries the session's tag. */
function ackScript(sound: Buffer, zero: Buffer, tag: number): Script {
  const soundFrames = SOUND_MS / FRAME_MS;
  const frames = Array.from({ length: PERIOD_MS / FRAME_MS }, (_, j) => (j === 0 ? taggedFrame(sound, tag) : j < soundFrames ? sound : zero));
  return { frames, utterances: [{ soundFrom: 0, silentAt: soundFrames }] };
}

/** Speech script: sentences, each followed by `gapSeconds` of silence (the recognizer's end-of-utterance hangover needs ~0.5 s). */
function speechScript(pcms: Buffer[], zero: Buffer, gapSeconds: number): Script {
  const frames: Buffer[] = [zero, zero, zero];
  const utterances: Script['utterances'] = [];
  for (const pcm of pcms) {
    const soundFrom = frames.length;
    for (let i = 0; i < pcm.length; i += FRAME_BYTES) {
      const f = Buffer.alloc(FRAME_BYTES);
      pcm.copy(f, 0, i, Math.min(pcm.length, i + FRAME_BYTES));
      frames.push(f);
    }
    utterances.push({ soundFrom, silentAt: frames.length });
    for (let j = 0; j < Math.round((gapSeconds * 1000) / FRAME_MS); j++) frames.push(zero);
  }
  return { frames, utterances };
}

/** Spreads session i's script start over one period (golden-ratio sequence: even at any N, as sessions are added). */
const phaseOf = (i: number) => ((i * 0.6180339887498949) % 1) * PERIOD_MS;

// ------------------------------------------------------------------------------------------------
// sessions through the edge, grown step by step, measured in windows

interface ProbeSummary {
  /** the worst 500 ms interval's p99 event-loop delay, and the longest delay, ms */
  loopP99: number;
  loopMax: number;
  /** share of the window spent in garbage collection (%), the longest pause (ms), major collections */
  gcPercent: number;
  gcMaxMs: number;
  majorGcs: number;
}

interface ProbeLine {
  t: number;
  loopP99: number;
  loopMax: number;
  gc: { count: number; totalMs: number; maxMs: number; majorCount: number; majorMs: number };
}

function readProbe(file: string, from: number, to: number): ProbeSummary {
  let lines: ProbeLine[] = [];
  try {
    lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as ProbeLine).filter((l) => l.t > from && l.t <= to + 250);
  } catch { /* no probe */ }
  if (lines.length === 0) return { loopP99: NaN, loopMax: NaN, gcPercent: NaN, gcMaxMs: NaN, majorGcs: NaN };
  const gcMs = lines.reduce((a, l) => a + l.gc.totalMs, 0);
  return {
    loopP99: Math.max(...lines.map((l) => l.loopP99)), loopMax: Math.max(...lines.map((l) => l.loopMax)),
    gcPercent: (100 * gcMs) / Math.max(1, to - from), gcMaxMs: Math.max(...lines.map((l) => l.gc.maxMs)), majorGcs: lines.reduce((a, l) => a + l.gc.majorCount, 0),
  };
}

interface Platform {
  /** where ./edge-probe.mjs writes */
  probeFile: string;
  origin: string;
  wsUrl: string;
  gqlUrl: string;
  apiKey: string;
  edgePid: number | undefined;
  /** pids of the platform's side: edge tree, Postgres, Redis (not the engines, not this process) */
  platformPids(): number[];
  enginePids(): number[];
}

interface RunOptions {
  script: (i: number) => Script;
  start: Record<string, unknown>;
  subscribe: boolean;
  /** the ack engine: its emit times give the platform's part */
  ack: AckProcess | null;
}

interface Ramp {
  startMs: number[];
  seconds: number;
  refused: string[];
}

interface WindowResult {
  n: number;
  ramp: Ramp;
  /** sessions that closed before they were told to stop (all of the run so far) */
  abnormal: string[];
  expected: number;
  onWs: number;
  onSub: number;
  e2eWs: number[];
  e2eSub: number[];
  addedWs: number[];
  addedSub: number[];
  ingest: number[];
  ingestGrowth: number;
  lateness: number[];
  subErrors: number;
  firstSubError: string | null;
  edgeRssMb: number;
  /** CPU seconds in the window; `other` = the machine's busy time not spent by the benchmark's processes */
  cpu: { edge: number; platform: number; engine: number; client: number; other: number; seconds: number };
  framesSent: number;
  engineChunks: number;
  /** the edge's event loop and garbage collector during the window (./edge-probe.mjs) */
  edgeLoop: ProbeSummary;
  /** stalls of audio streams as the engine saw them (gaps between chunks > 250 ms) */
  engineGaps: { over250: number; maxMs: number } | null;
}

const describe = (s: WsSession): string => {
  const r = s.result;
  return `session ${s.index}: ${r.sessionId ? 'started' : 'not started'}, close ${r.closeCode}, state ${r.closedState}, error ${r.error ? `${r.error.code} ${r.error.message}` : 'none'}`;
};

class LoadRun {
  readonly driver = new Driver(Buffer.alloc(FRAME_BYTES));
  readonly subs: SubscriptionPool;
  readonly sessions: WsSession[] = [];
  private readonly emits = new Map<string, number>();
  private stopping = false;
  private subErrorsSeen = 0;

  constructor(private readonly p: Platform, private readonly o: RunOptions) {
    this.subs = new SubscriptionPool(p.gqlUrl, p.apiKey, SUBSCRIPTIONS_PER_CONNECTION);
  }

  /** Opens sessions until there are `n`; each streams silence, then its script from its phase on. */
  async grow(n: number): Promise<Ramp> {
    const began = performance.now();
    const fresh = Array.from({ length: Math.max(0, n - this.sessions.length) }, (_, j) => {
      const i = this.sessions.length + j;
      return new WsSession(i, this.o.script(i), FRAME_MS, { wsUrl: this.p.wsUrl, apiKey: this.p.apiKey, start: this.o.start });
    });
    this.sessions.push(...fresh);
    const ramp: Ramp = { startMs: [], seconds: 0, refused: [] };
    let next = 0;
    const opener = async () => {
      while (next < fresh.length) {
        const s = fresh[next++]!;
        if (!(await s.open(30_000)) || !s.result.sessionId) {
          ramp.refused.push(describe(s));
          continue;
        }
        ramp.startMs.push(s.result.startedAt - s.result.openedAt);
        // half a second of silence first, so the subscription is in place before the first final
        s.scriptFromK = Math.ceil((SUBSCRIBE_LEAD_MS + phaseOf(s.index)) / FRAME_MS);
        this.driver.add(s);
        if (this.o.subscribe) this.subs.subscribe(s.result.sessionId, s.log);
      }
    };
    await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, fresh.length) }, opener));
    ramp.seconds = (performance.now() - began) / 1000;
    return ramp;
  }

  private cpu() {
    const sum = (pids: number[]) => pids.reduce((s, pid) => s + (Number.isFinite(cpuSeconds(pid)) ? cpuSeconds(pid) : 0), 0);
    const u = process.cpuUsage();
    return {
      edge: sum(treeOf(this.p.edgePid)), platform: sum(this.p.platformPids()), engine: sum(this.p.enginePids()), client: (u.user + u.system) / 1e6,
      machine: machineBusySeconds(), at: performance.now(),
    };
  }

  /** Measures `seconds` of steady streaming; finals may arrive up to `graceMs` after the window. */
  async window(ramp: Ramp, seconds: number, graceMs: number): Promise<WindowResult> {
    const engine0 = this.o.ack ? await this.o.ack.stats(true) : null;
    const frames0 = this.driver.frames;
    this.driver.lateness = [];
    const from = epochMs();
    const c0 = this.cpu();
    let rss = 0;
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      rss = Math.max(rss, rssMb(this.p.edgePid));
      await sleep(Math.min(500, Math.max(0, until - performance.now())));
    }
    const c1 = this.cpu();
    const to = epochMs();
    const lateness = this.driver.lateness;
    await sleep(graceMs);
    const engine1 = this.o.ack ? await this.o.ack.stats() : null;
    const framesSent = this.driver.frames - frames0;
    if (this.o.ack) for (const e of await this.o.ack.emits()) this.emits.set(`${e.requestId || `tag${e.tag}`}:${Math.round(e.endSeconds * 1000)}`, e.emitMs);

    const live = this.sessions.filter((s) => s.result.sessionId);
    const r: WindowResult = {
      n: this.sessions.length, ramp, abnormal: live.filter((s) => s.result.closeCode !== null).map(describe),
      expected: 0, onWs: 0, onSub: 0, e2eWs: [], e2eSub: [], addedWs: [], addedSub: [], ingest: [], ingestGrowth: NaN, lateness,
      subErrors: this.subs.errors.length - this.subErrorsSeen, firstSubError: this.subs.errors[this.subErrorsSeen] ?? null, edgeRssMb: rss,
      cpu: {
        edge: c1.edge - c0.edge, platform: c1.platform - c0.platform, engine: c1.engine - c0.engine, client: c1.client - c0.client,
        other: (c1.machine - c0.machine) - (c1.platform - c0.platform) - (c1.engine - c0.engine) - (c1.client - c0.client), seconds: (c1.at - c0.at) / 1000,
      },
      framesSent, engineChunks: engine0 && engine1 ? engine1.chunks - engine0.chunks : NaN, edgeLoop: readProbe(this.p.probeFile, from, to),
      engineGaps: engine1 ? { over250: engine1.gapsOver250ms, maxMs: engine1.maxGapMs } : null,
    };
    this.subErrorsSeen = this.subs.errors.length;
    const ingestTimed: { t: number; v: number }[] = [];
    for (const s of live) {
      for (const u of s.log.all) {
        if (!(u.t0 >= from && u.t0 <= to)) continue;
        r.expected++;
        if (Number.isFinite(u.ws)) { r.onWs++; r.e2eWs.push(u.ws - u.t0); }
        if (Number.isFinite(u.sub)) { r.onSub++; r.e2eSub.push(u.sub - u.t0); }
        const key = Math.round(u.endSec * 1000);
        const emit = this.emits.get(`${s.result.sessionId}:${key}`) ?? this.emits.get(`tag${s.index}:${key}`);
        if (emit === undefined) continue;
        if (Number.isFinite(u.ws)) r.addedWs.push(u.ws - emit);
        if (Number.isFinite(u.sub)) r.addedSub.push(u.sub - emit);
        r.ingest.push(emit - u.t0);
        ingestTimed.push({ t: u.t0, v: emit - u.t0 });
      }
    }
    if (ingestTimed.length >= 9) {
      ingestTimed.sort((a, b) => a.t - b.t);
      const third = Math.floor(ingestTimed.length / 3);
      r.ingestGrowth = summarize(ingestTimed.slice(-third).map((x) => x.v)).p95 - summarize(ingestTimed.slice(0, third).map((x) => x.v)).p95;
    }
    return r;
  }

  /** Stops every session (stop, last segments, closed) and the subscriptions; answers the sessions that did not finish normally. */
  async stop(): Promise<string[]> {
    if (this.stopping) return [];
    this.stopping = true;
    this.driver.stopAllAt(performance.now() + FRAME_MS);
    this.driver.seal(performance.now() + 5_000);
    await this.driver.done;
    await Promise.race([Promise.all(this.sessions.map((s) => s.closed)), sleep(30_000)]);
    const unfinished = this.sessions.filter((s) => s.result.sessionId && (s.result.closeCode !== 1000 || s.result.closedState !== 'FINISHED')).map(describe);
    for (const s of this.sessions) if (s.result.closeCode === null) s.terminate();
    await this.subs.close();
    return unfinished;
  }
}

function holds(r: WindowResult, subscribed: boolean): { ok: boolean; why: string[] } {
  const why: string[] = [];
  if (r.ramp.refused.length > 0) why.push(`${r.ramp.refused.length} sessions did not start (${r.ramp.refused[0]})`);
  if (r.abnormal.length > 0) why.push(`${r.abnormal.length} sessions ended on their own (${r.abnormal[0]})`);
  const pct = (x: number) => (r.expected > 0 ? (100 * x) / r.expected : 0);
  if (pct(r.onWs) < HOLD.finalsPercent) why.push(`finals on the WebSocket ${fmt(pct(r.onWs), 1)}%`);
  if (subscribed && pct(r.onSub) < HOLD.finalsPercent) why.push(`finals on the subscription ${fmt(pct(r.onSub), 1)}%`);
  if (!(summarize(r.e2eWs).p95 < HOLD.e2eP95Ms)) why.push(`WebSocket final p95 ${fmt(summarize(r.e2eWs).p95, 0)} ms`);
  if (!(summarize(r.ingest).p95 <= HOLD.ingestP95Ms)) why.push(`frames late: client→engine p95 ${fmt(summarize(r.ingest).p95, 0)} ms`);
  if (r.ingestGrowth > HOLD.ingestGrowthMs) why.push(`frames backlogged: client→engine p95 grew ${fmt(r.ingestGrowth, 0)} ms within the window`);
  return { ok: why.length === 0, why };
}

// ------------------------------------------------------------------------------------------------
// straight to an engine (the comparison without the platform)

/** Plays each script once per stream, paced like the sessions; answers the end-of-utterance → segment latencies. */
async function directLatency(target: string, scripts: Script[]): Promise<number[]> {
  const client = createEngineClient('SpeechRecognition', { target, tlsMode: 'PLAINTEXT', deadlineMs: 10_000 });
  const driver = new Driver(Buffer.alloc(FRAME_BYTES));
  const t0 = performance.now();
  const receiving: Promise<void>[] = [];
  const sessions = scripts.map((script, i) => {
    const stream = client.stream('StreamingRecognize');
    stream.send({ config: { format: FORMAT, language: 'en-US', interimResults: true } });
    const s: DrivenSession = {
      index: i, frameMs: FRAME_MS, script, anchor: t0 + phaseOf(i), k: 0, scriptFromK: 0, loop: false, endK: script.frames.length + 3,
      finished: false, log: new UtteranceLog(),
      sendFrame: (f) => { stream.send({ audio: f }); },
      sendStop: () => { stream.end(); },
    };
    receiving.push((async () => {
      for await (const r of stream) {
        if (!r.segment) continue;
        const at = epochMs();
        const u = s.log.find(r.segment.endSeconds);
        if (u) u.ws = Number.isFinite(u.ws) ? Math.max(u.ws, at) : at;
      }
    })());
    driver.add(s);
    return s;
  });
  driver.seal(performance.now() + 120_000);
  await driver.done;
  await Promise.all(receiving);
  client.close();
  return sessions.flatMap((s) => s.log.all.filter((u) => Number.isFinite(u.ws) && Number.isFinite(u.t0)).map((u) => u.ws - u.t0));
}

// ------------------------------------------------------------------------------------------------

async function setUp(client: EdgeClient, key: string, ackAddress: string, psAddress: string | null): Promise<void> {
  const ok = (what: string, res: { status: number; text: string }, expected = [200, 201]) => {
    if (!expected.includes(res.status)) throw new Error(`${what}: ${res.status} ${res.text}`);
  };
  const me = await client.get<{ tenantId: string }>('/api/v1/users/me', { apiKey: key });
  ok('users/me', me);
  // the platform is measured, not its default limits: lifted so they never refuse (they are still
  // counted unless BENCH_RATE_LIMITS=off). A session reserves its whole maximum duration of the
  // monthly minutes while it runs, so the duration limit is lowered and the quota raised.
  // PUT /admin/tenants/{id} changes only the fields it names (there is no PATCH)
  ok('tenant', await client.put(`/api/v1/admin/tenants/${me.body.tenantId}`, { speechServiceSessionMaxConcurrent: 100_000 }, { apiKey: key }));
  ok('rate limits', await client.request('PATCH', '/api/v1/admin/rate-limits/defaults', {
    apiKey: key,
    body: {
      globalRequests: 2_147_483_647,
      'speech-service': {
        speechServiceStreamSessionStarts: 1_000_000, speechServiceStreamMaxConcurrentSessions: 100_000,
        speechServiceStreamMaxSessionDurationSeconds: 600, speechServiceStreamMaxBytesPerSecond: 64_000,
      },
    },
  }));
  ok('quotas', await client.request('PATCH', '/api/v1/admin/quotas/defaults', { apiKey: key, body: { 'speech-service': { monthlyTranscriptionMinutes: 100_000_000 } } }));
  const register = async (name: string, target: string, alias: string, isDefault: boolean) => {
    ok(`model ${name}`, await client.post('/api/v1/speech-services/admin/asr/models', {
      name, displayName: `Bench ${name}`, supportedLocales: ['en-US'], grpcTarget: target, grpcTlsMode: 'PLAINTEXT', grpcDeadlineMs: 5_000,
    }, { apiKey: key }));
    ok(`alias ${alias}`, await client.put(`/api/v1/speech-services/admin/asr/model-aliases/${alias}`, {
      type: 'FAMILY', displayName: `Bench ${alias}`, resolvedModel: name, isDefault,
    }, { apiKey: key }));
  };
  await register('bench-ack', ackAddress, ALIAS, true);
  // the reference engine refuses any model name but its own in config.model
  if (psAddress) await register('pocketsphinx-en-us', psAddress, PS_ALIAS, false);
  const aliases = await client.get<{ alias: string; isDefault: boolean }[]>('/api/v1/speech-services/admin/asr/model-aliases', { apiKey: key });
  ok('aliases', aliases);
  if (!aliases.body.find((a) => a.alias === ALIAS)?.isDefault) throw new Error(`${ALIAS} is not the default ASR alias: ${aliases.text}`);
}

/** Warnings and errors the platform logged (pino JSON lines at level ≥ 40), for the report. */
function platformProblems(output: string): string[] {
  return output.split('\n').filter((l) => /"level":(40|50|60)\b/.test(l)).map((l) => {
    try {
      const j = JSON.parse(l) as { level: number; msg?: string; err?: { message?: string } };
      return `${j.level >= 50 ? 'error' : 'warn'}: ${j.msg ?? ''}${j.err?.message ? ` (${j.err.message})` : ''}`;
    } catch {
      return l.slice(0, 200);
    }
  });
}

export async function runStreamingSuite(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-bench-streaming-'));
  const services = await sharedServices(dataDir);
  const rootKey = generateApiKey();
  const probeFile = path.join(dataDir, 'edge-probe.jsonl');
  let edge: PlatformProcess | null = null;
  let ack: AckProcess | null = null;
  let ps: Awaited<ReturnType<typeof spawnPocketsphinx>> | null = null;
  const runs: LoadRun[] = [];
  const rateLimits = process.env.BENCH_RATE_LIMITS === 'off' ? 'off' : 'on';
  const machine = await machineNote();
  try {
    ack = await spawnAckEngine();
    const speech = fliteAvailable() && modelInstalled();
    if (speech) ps = await spawnPocketsphinx(PS_SESSIONS + 2);
    const edgePort = await freePort();
    edge = spawnPlatform({
      DATA_DIR: dataDir, INTERNAL_TOKEN_SECRET: randomBytes(32).toString('hex'), DATABASE_URL: services.databaseUrl, REDIS_URL: services.redisUrl,
      PORT: String(edgePort), BOOTSTRAP_API_KEY: rootKey, DEV_IDP_ENABLED: 'false', ASR_ENGINE_EMBEDDED: 'off', RATE_LIMITS: rateLimits, LOG_LEVEL: 'warn',
      // the edge's event-loop delay and GC pauses, written to a file every 500 ms (observes only)
      NODE_OPTIONS: `--import ${pathToFileURL(path.join(HERE, 'edge-probe.mjs')).href}`, BENCH_PROBE_FILE: probeFile,
      // experiments: BENCH_EDGE_<NAME>=value sets <NAME> for the platform (e.g. BENCH_EDGE_DATABASE_POOL_SIZE=8)
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_EDGE_')).map(([k, v]) => [k.slice('BENCH_EDGE_'.length), v])),
    });
    const edgeOverrides = Object.keys(process.env).filter((k) => k.startsWith('BENCH_EDGE_')).map((k) => `${k.slice('BENCH_EDGE_'.length)}=${process.env[k]}`);
    await waitReady(`http://127.0.0.1:${edgePort}/readyz`, edge, 120_000);
    await setUp(new EdgeClient(`http://127.0.0.1:${edgePort}`), rootKey, ack.address, ps?.address ?? null);
    const enginePids = () => [...treeOf(ack?.pid), ...treeOf(ps?.child.pid)];
    const p: Platform = {
      probeFile,
      origin: `http://127.0.0.1:${edgePort}`,
      wsUrl: `ws://127.0.0.1:${edgePort}/api/v1/speech-services/streams/ws`, gqlUrl: `ws://127.0.0.1:${edgePort}/graphql`, apiKey: rootKey,
      edgePid: serverPid(edge),
      platformPids: () => {
        const engines = new Set(enginePids());
        return descendants(process.pid).filter((pid) => !engines.has(pid));
      },
      enginePids,
    };
    const idleRss = rssMb(p.edgePid);
    const sound = soundFrame();
    const zero = Buffer.alloc(FRAME_BYTES);
    const ackRun = () => {
      const run = new LoadRun(p, { script: (i) => ackScript(sound, zero, i), start: { interimResults: false }, subscribe: true, ack });
      runs.push(run);
      return run;
    };
    const settle = () => sleep(SUBSCRIBE_LEAD_MS + PERIOD_MS + 300); // every new session is in its script

    // warm-up (JIT, pools, caches) and the latency at light load
    const warm = ackRun();
    const light = await warm.window(await warm.grow(WARMUP_SESSIONS).then(async (r) => { await settle(); return r; }), WINDOW_SECONDS, GRACE_MS);
    const lightUnfinished = await warm.stop();
    await sleep(2_000);
    const baseRss = rssMb(p.edgePid);

    // the sweep: sessions are added step by step and stay open
    const sweep: WindowResult[] = [];
    let held: WindowResult | null = null;
    let failure: { r: WindowResult; why: string[] } | null = null;
    const run = ackRun();
    const sweepStart = performance.now();
    for (const n of STEPS) {
      if (performance.now() - sweepStart > SWEEP_BUDGET_MS) break;
      const ramp = await run.grow(n);
      await settle();
      const r = await run.window(ramp, WINDOW_SECONDS, GRACE_MS);
      sweep.push(r);
      const h = holds(r, true);
      if (!h.ok) {
        failure = { r, why: h.why };
        break;
      }
      held = r;
    }
    const stopBegan = performance.now();
    const sweepUnfinished = await run.stop();
    const stopSeconds = (performance.now() - stopBegan) / 1000;

    // pocketsphinx on flite speech: through the platform, and straight to the engine
    let psPlatform: WindowResult | null = null;
    let psDirect: number[] = [];
    let psUnfinished: string[] = [];
    if (ps) {
      const voiceDir = fs.mkdtempSync(path.join(dataDir, 'flite-'));
      const pcms = SENTENCES.map((t) => synthesize(voiceDir, t, 'kal16'));
      const psScripts = Array.from({ length: PS_SESSIONS }, (_, i) => speechScript([pcms[(2 * i) % pcms.length]!, pcms[(2 * i + 1) % pcms.length]!], zero, 1.5));
      // the engine creates a decoder per concurrent stream on first use (~0.3 s, blocking its thread): not measured
      await directLatency(ps.address, psScripts.map((sc) => ({ frames: sc.frames.slice(0, 10), utterances: [] })));
      const psRun = new LoadRun(p, { script: (i) => psScripts[i]!, start: { model: PS_ALIAS }, subscribe: true, ack: null });
      runs.push(psRun);
      const psPass = (psScripts[0]?.frames.length ?? 0) * FRAME_MS;
      const ramp = await psRun.grow(PS_SESSIONS);
      await sleep(SUBSCRIBE_LEAD_MS + PERIOD_MS);
      psPlatform = await psRun.window(ramp, Math.max(WINDOW_SECONDS, psPass / 1000), 4_000);
      psUnfinished = await psRun.stop();
      psDirect = await directLatency(ps.address, psScripts);
    }

    // ---------------------------------------------------------------------------------------------
    const s = summarize;
    const ms = (x: number) => fmt(x, 0);
    const ms1 = (x: number) => fmt(x, 1);
    const pct = (a: number, b: number) => (b > 0 ? fmt((100 * a) / b, 1) : 'n/a');
    const cores = os.cpus().length;
    console.log(`\nStreaming recognition, the platform's own cost. ${cores} cores are shared by the load generator (this process), the edge, Postgres, Redis and the engines; ${machine}.`);
    console.log(`  engine: the ack engine (no recognition). Sessions stream ${FRAME_MS} ms frames at real time and end an utterance every ${PERIOD_MS / 1000} s (${SOUND_MS / 1000} s tone, then silence),`);
    console.log(`  phases spread evenly; one graphql-ws subscription per session (${SUBSCRIPTIONS_PER_CONNECTION} per connection); one user (the bootstrap administrator); RATE_LIMITS=${rateLimits}${rateLimits === 'on' ? ' (limits counted, values lifted)' : ''};`);
    console.log(`  sessions are added step by step and stay open; each step is measured over a ${fmt(WINDOW_SECONDS, 0)} s window once its new sessions are streaming.`);
    const experiments = [...edgeOverrides, ...(process.env.BENCH_ACK_CONNECTION_WINDOW_BYTES ? [`ack engine HTTP/2 connection window ${process.env.BENCH_ACK_CONNECTION_WINDOW_BYTES} B`] : [])];
    if (experiments.length > 0) console.log(`  experiment settings: ${experiments.join(', ')}`);
    const steps = [light, ...sweep];
    const label = (r: WindowResult) => (r === light ? `${r.n} (warm-up)` : String(r.n));
    console.log('\ncapacity (CPU in % of one core during the window; RSS of the edge process):');
    console.log(table(
      ['N', 'start p50/p95 ms', 'ramp s', 'finals ws %', 'finals sub %', 'ingest p95 ms', 'ingest growth', 'stream stalls', 'edge loop p99/max ms', 'edge gc % / max ms', 'client late p99 ms', 'edge cpu %', 'platform cpu %', 'engine cpu %', 'client cpu %', 'other cpu %', 'edge RSS MB', 'frames 1:1 %', 'holds'],
      steps.map((r) => [
        label(r), `${ms(s(r.ramp.startMs).p50)}/${ms(s(r.ramp.startMs).p95)}`, fmt(r.ramp.seconds, 1), pct(r.onWs, r.expected), pct(r.onSub, r.expected),
        ms1(s(r.ingest).p95), ms1(r.ingestGrowth), r.engineGaps ? `${r.engineGaps.over250} (max ${ms(r.engineGaps.maxMs)} ms)` : 'n/a',
        `${ms(r.edgeLoop.loopP99)}/${ms(r.edgeLoop.loopMax)}`, `${fmt(r.edgeLoop.gcPercent, 1)} / ${ms(r.edgeLoop.gcMaxMs)}`, ms(s(r.lateness).p99),
        fmt((100 * r.cpu.edge) / r.cpu.seconds, 0), fmt((100 * r.cpu.platform) / r.cpu.seconds, 0), fmt((100 * r.cpu.engine) / r.cpu.seconds, 0), fmt((100 * r.cpu.client) / r.cpu.seconds, 0),
        fmt(Math.max(0, (100 * r.cpu.other) / r.cpu.seconds), 0), fmt(r.edgeRssMb, 0), Number.isFinite(r.engineChunks) ? pct(r.engineChunks, r.framesSent) : 'n/a', r === light ? '' : holds(r, true).ok ? 'yes' : 'no',
      ]),
    ));
    console.log('  start = WebSocket open → started; ingest = the client sends an utterance\'s first silent frame → the engine emits its segment (a backlog of frames anywhere shows here);');
    console.log('  stream stalls = gaps > 250 ms between two chunks of one stream at the engine; edge loop = event-loop delay in the edge (worst 500 ms p99 / max); gc = time in garbage collection;');
    console.log('  other cpu = busy time of the machine outside the benchmark\'s processes (other work on a shared machine: results are only meaningful when it is near 0);');
    console.log('  platform cpu = edge + Postgres + Redis; frames 1:1 = audio chunks the engine received / frames the client sent (about 100% when the edge forwards each frame as it comes)');
    console.log(`  holds: every session starts and keeps running, ≥ ${HOLD.finalsPercent}% of finals on the WebSocket and on the subscription, WebSocket final p95 < ${HOLD.e2eP95Ms} ms, ingest p95 ≤ ${HOLD.ingestP95Ms} ms and its growth within the window ≤ ${HOLD.ingestGrowthMs} ms`);
    if (failure) console.log(`  N=${failure.r.n} does not hold: ${failure.why.join('; ')}`);
    for (const r of steps) if (r.subErrors > 0) console.log(`  N=${r.n}: ${r.subErrors} subscription errors, first: ${r.firstSubError}`);
    for (const [what, list] of [['warm-up', lightUnfinished], ['sweep', sweepUnfinished], ['pocketsphinx', psUnfinished]] as const) {
      if (list.length > 0) console.log(`  ${what}: ${list.length} sessions did not finish normally after stop, first: ${list[0]}`);
    }
    console.log(`  stopping ${run.sessions.length} sessions took ${fmt(stopSeconds, 1)} s`);

    console.log('\nlatency from the end of an utterance to its final (ms; added = receive time − the engine\'s emit time, the platform\'s part):');
    console.log(table(['sessions', 'ws p50', 'ws p95', 'sub p50', 'sub p95', 'added ws p50', 'added ws p95', 'added sub p50', 'added sub p95', 'sub/ws p50'], steps.map((r) => [
      `ack, N=${label(r)}${r === failure?.r ? ' (does not hold)' : ''}`, ms1(s(r.e2eWs).p50), ms1(s(r.e2eWs).p95), ms1(s(r.e2eSub).p50), ms1(s(r.e2eSub).p95),
      ms1(s(r.addedWs).p50), ms1(s(r.addedWs).p95), ms1(s(r.addedSub).p50), ms1(s(r.addedSub).p95), fmt(s(r.e2eSub).p50 / s(r.e2eWs).p50, 2),
    ])));

    console.log(`\nreference engine (pocketsphinx in its own process, ${PS_SESSIONS} sessions of flite kal16 sentences with 1.5 s of silence after each; its voice-activity detection ends utterances):`);
    if (psPlatform) {
      const d = s(psDirect);
      const w = s(psPlatform.e2eWs);
      const sub = s(psPlatform.e2eSub);
      console.log(table(['path', 'finals', 'p50 ms', 'p95 ms', 'p50 / direct'], [
        ['straight to the engine (kit client)', psDirect.length, ms(d.p50), ms(d.p95), '1.00'],
        ['through the platform: WebSocket final', `${psPlatform.onWs}/${psPlatform.expected}`, ms(w.p50), ms(w.p95), fmt(w.p50 / d.p50, 2)],
        ['through the platform: subscription', `${psPlatform.onSub}/${psPlatform.expected}`, ms(sub.p50), ms(sub.p95), fmt(sub.p50 / d.p50, 2)],
      ]));
      console.log(`  pocketsphinx / ack engine, WebSocket final p50 at light load: ${fmt(w.p50 / s(light.e2eWs).p50, 0)}× (recognition, not the platform, is most of what a user waits for)`);
    } else console.log('  skipped: flite or pocketsphinx-en-us is not installed (bash scripts/prepare.sh installs them)');

    console.log('\nsummary:');
    if (held) {
      const edgeCores = held.cpu.edge / held.cpu.seconds;
      const platformCores = held.cpu.platform / held.cpu.seconds;
      console.log(`  largest N held: ${held.n} concurrent real-time sessions${failure ? ` (N=${failure.r.n} did not)` : ' (the largest tried)'}, load generator on the same ${cores} cores (it used ${fmt(held.cpu.client / held.cpu.seconds, 2)} cores)`);
      console.log(`  CPU at N=${held.n}: edge ${fmt(edgeCores, 2)} cores → ${fmt(held.n / edgeCores, 0)} sessions per edge core; edge + Postgres + Redis ${fmt(platformCores, 2)} cores → ${fmt(held.n / platformCores, 0)} per core (target ≥ 200 per core)`);
      console.log(`  platform-added latency at N=${held.n}: subscription p50 ${ms1(s(held.addedSub).p50)} / p95 ${ms1(s(held.addedSub).p95)} ms, WebSocket p50 ${ms1(s(held.addedWs).p50)} / p95 ${ms1(s(held.addedWs).p95)} ms (target p95 ≤ ${ADDED_TARGET_P95_MS} ms: ${s(held.addedSub).p95 <= ADDED_TARGET_P95_MS ? 'met' : 'not met'})`);
      console.log(`  edge RSS: ${fmt(idleRss, 0)} MB idle, ${fmt(baseRss, 0)} MB after the warm-up, ${fmt(held.edgeRssMb, 0)} MB at N=${held.n} → ${fmt(((held.edgeRssMb - baseRss) * 1024) / held.n, 0)} KB per session`);
    } else {
      console.log(`  no step held${failure ? ` (N=${failure.r.n}: ${failure.why.join('; ')})` : ''}`);
    }
    console.log(`  platform-added latency at light load (N=${light.n}): subscription p50 ${ms1(s(light.addedSub).p50)} / p95 ${ms1(s(light.addedSub).p95)} ms, WebSocket p50 ${ms1(s(light.addedWs).p50)} / p95 ${ms1(s(light.addedWs).p95)} ms`);
    const problems = platformProblems(edge.output());
    if (problems.length > 0) {
      const counts = new Map<string, number>();
      for (const x of problems) counts.set(x, (counts.get(x) ?? 0) + 1);
      console.log(`  the platform logged ${problems.length} warnings/errors: ${[...counts].slice(0, 5).map(([m, c]) => `${c}× ${m}`).join('; ')}`);
    }
  } finally {
    for (const r of runs) await r.stop().catch(() => undefined);
    await edge?.stop();
    await ack?.stop();
    await ps?.stop();
    await services.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
