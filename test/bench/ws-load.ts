/**
 * The streaming suite's load generator: many real-time audio sessions driven by one timer, each
 * session a WebSocket to the edge (docs/streaming.md) or a gRPC stream straight to an engine, with
 * GraphQL subscriptions (graphql-ws) to their events. Frames are pre-built buffers shared by every
 * session; the per-frame work is one `send`.
 *
 * Timing: a session's frame k holds audio [k·f, (k+1)·f) and is sent at anchor + (k+1)·f, when a
 * microphone would have delivered it. A session sends silence until its script starts (a few
 * hundred ms after it started, staggered so utterance ends spread evenly over time), then plays
 * its script in a loop until told to stop. An utterance "ends" when the first silent frame after
 * its sound is sent (t0); its final segment's endSeconds is then k·f, which is how finals on the
 * WebSocket, on the subscription and in the engine are matched to it.
 */
import { createClient, type Client as GqlClient } from 'graphql-ws';
import WebSocket from 'ws';
import { epochMs } from './common';
import { TAG_MAGIC } from './ack-engine';

export interface Script {
  /** frames of one pass of the script, in order (shared buffers); a pass ends in silence */
  frames: Buffer[];
  /** for each utterance of a pass: index of its first sound frame and of the first silent frame after it */
  utterances: { soundFrom: number; silentAt: number }[];
}

export interface UtteranceTimes {
  /** session-relative seconds of the sound's start and of the first silent frame */
  startSec: number;
  endSec: number;
  /** epoch ms: first silent frame sent, final on the WebSocket (or straight from the engine), final on the subscription */
  t0: number;
  ws: number;
  sub: number;
}

const endKey = (seconds: number) => Math.round(seconds * 1000);

/** Utterances of one session, found by the endSeconds of their final. */
export class UtteranceLog {
  readonly all: UtteranceTimes[] = [];
  private readonly byEnd = new Map<number, UtteranceTimes>();
  private open: UtteranceTimes | null = null;

  soundStarts(sec: number): void {
    this.open = { startSec: sec, endSec: NaN, t0: NaN, ws: NaN, sub: NaN };
    this.all.push(this.open);
  }

  silenceStarts(sec: number): void {
    if (!this.open) return;
    this.open.endSec = sec;
    this.open.t0 = epochMs();
    this.byEnd.set(endKey(sec), this.open);
    this.open = null;
  }

  /** Exact for the ack engine (its segment ends where the silence starts); otherwise the utterance whose span holds the end. */
  find(endSeconds: number): UtteranceTimes | undefined {
    const exact = this.byEnd.get(endKey(endSeconds));
    if (exact) return exact;
    for (let i = this.all.length - 1; i >= 0; i--) {
      const u = this.all[i]!;
      if (Number.isFinite(u.endSec) && endSeconds >= u.startSec - 0.05 && endSeconds <= u.endSec + 0.25) return u;
    }
    return undefined;
  }
}

export interface DrivenSession {
  index: number;
  frameMs: number;
  script: Script;
  /** perf ms of frame 0's audio start (frames are sent at anchor + (k+1)·f) */
  anchor: number;
  /** frames sent */
  k: number;
  /** the k at which the script's first pass starts (undefined: silence until told) */
  scriptFromK: number | undefined;
  /** play the script once (false) or until stopped (true) */
  loop: boolean;
  /** stop after frame endK − 1 */
  endK: number;
  finished: boolean;
  log: UtteranceLog;
  sendFrame(frame: Buffer): void;
  sendStop(): void;
}

/** A tagged copy of a sound frame: sample 0 = TAG_MAGIC, samples 1–2 = the tag (a benchmark marker the ack engine reads). */
export function taggedFrame(frame: Buffer, tag: number): Buffer {
  const f = Buffer.from(frame);
  f.writeUInt16LE(TAG_MAGIC, 0);
  f.writeUInt16LE(tag & 0xffff, 2);
  f.writeUInt16LE((tag >>> 16) & 0xffff, 4);
  return f;
}

/**
 * One timer for every session: each tick sends every frame that is due. Sessions are added while
 * it runs; `done` resolves once it is sealed and every session has finished, or `deadline` passes.
 */
export class Driver {
  readonly sessions: DrivenSession[] = [];
  frames = 0;
  /** how late frames left against their schedule, ms (every 8th frame), since the last reset */
  lateness: number[] = [];
  readonly done: Promise<void>;
  private deadline = Infinity;
  private sealed = false;
  private timer: NodeJS.Timeout | null;
  private resolveDone!: () => void;

  constructor(private readonly zero: Buffer, tickMs = 4) {
    this.done = new Promise<void>((resolve) => { this.resolveDone = resolve; });
    this.timer = setInterval(() => this.tick(), tickMs);
  }

  add(s: DrivenSession): void {
    this.sessions.push(s);
  }

  /** Every live session stops after the frame due at `at` (perf ms). */
  stopAllAt(at: number): void {
    for (const s of this.sessions) if (!s.finished) s.endK = Math.max(s.k, Math.ceil((at - s.anchor) / s.frameMs));
  }

  /** No more sessions will be added; `done` resolves when all have finished (or at `deadline`). */
  seal(deadline: number): void {
    this.sealed = true;
    this.deadline = deadline;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.resolveDone();
  }

  private tick(): void {
    const now = performance.now();
    let open = 0;
    for (const s of this.sessions) {
      if (s.finished) continue;
      open++;
      for (;;) {
        const due = s.anchor + (s.k + 1) * s.frameMs;
        if (due > now || s.k >= s.endK) break;
        let frame = this.zero;
        if (s.scriptFromK !== undefined && s.k >= s.scriptFromK) {
          const j = s.k - s.scriptFromK;
          const len = s.script.frames.length;
          if (s.loop || j < len) {
            const jj = j % len;
            frame = s.script.frames[jj]!;
            for (const spec of s.script.utterances) {
              if (spec.soundFrom === jj) s.log.soundStarts((s.k * s.frameMs) / 1000);
              if (spec.silentAt === jj) s.log.silenceStarts((s.k * s.frameMs) / 1000);
            }
          } else if (j === len) s.log.silenceStarts((s.k * s.frameMs) / 1000);
        }
        s.sendFrame(frame);
        s.k++;
        this.frames++;
        if ((this.frames & 7) === 0) this.lateness.push(now - due);
      }
      if (s.k >= s.endK) {
        s.finished = true;
        s.sendStop();
      }
    }
    if ((this.sealed && open === 0) || now > this.deadline) this.stop();
  }
}

// ------------------------------------------------------------------------------------------------
// WebSocket sessions through the edge

export interface WsSessionOptions {
  wsUrl: string;
  apiKey: string;
  start: Record<string, unknown>;
}

export interface WsSessionResult {
  sessionId: string | null;
  openedAt: number;
  startedAt: number;
  /** perf ms the socket closed */
  closedAt: number;
  closeCode: number | null;
  /** the last error message, and the closed message's state */
  error: { code?: string; message?: string } | null;
  closedState: string | null;
  finalsOnWs: number;
  finalsUnmatched: number;
}

export class WsSession implements DrivenSession {
  anchor = 0;
  k = 0;
  scriptFromK: number | undefined = undefined;
  loop = true;
  endK = Infinity;
  finished = false;
  readonly log = new UtteranceLog();
  result: WsSessionResult = {
    sessionId: null, openedAt: NaN, startedAt: NaN, closedAt: NaN, closeCode: null, error: null, closedState: null, finalsOnWs: 0, finalsUnmatched: 0,
  };
  private ws: WebSocket | null = null;
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;

  constructor(readonly index: number, readonly script: Script, readonly frameMs: number, private readonly opts: WsSessionOptions) {
    this.closed = new Promise((resolve) => { this.resolveClosed = resolve; });
  }

  /** Opens the socket and sends start; resolves true on `started`, false when refused or closed (or after `timeoutMs`). */
  open(timeoutMs: number): Promise<boolean> {
    this.result.openedAt = performance.now();
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const settle = (ok: boolean) => { clearTimeout(timer); resolve(ok); };
      const ws = new WebSocket(this.opts.wsUrl, { headers: { 'x-api-key': this.opts.apiKey }, perMessageDeflate: false });
      this.ws = ws;
      ws.on('open', () => ws.send(JSON.stringify({ type: 'start', ...this.opts.start })));
      ws.on('message', (data, isBinary) => {
        if (isBinary) return;
        const at = epochMs();
        let m: { type?: string; sessionId?: string; segment?: { endSeconds?: number }; code?: string; message?: string; state?: string };
        try {
          m = JSON.parse((data as Buffer).toString('utf8')) as typeof m;
        } catch {
          return;
        }
        switch (m.type) {
          case 'started':
            this.result.sessionId = m.sessionId ?? null;
            this.result.startedAt = performance.now();
            // the session's audio clock starts now
            this.anchor = performance.now();
            settle(true);
            break;
          case 'final': {
            this.result.finalsOnWs++;
            const u = this.log.find(Number(m.segment?.endSeconds));
            if (u) u.ws = Number.isFinite(u.ws) ? Math.max(u.ws, at) : at;
            else this.result.finalsUnmatched++;
            break;
          }
          case 'error':
            this.result.error = { code: m.code, message: m.message };
            break;
          case 'closed':
            this.result.closedState = m.state ?? null;
            break;
          default:
            break;
        }
      });
      ws.on('error', (err) => {
        this.result.error ??= { code: 'CLIENT', message: err.message };
      });
      ws.on('close', (code) => {
        this.result.closeCode = code;
        this.result.closedAt = performance.now();
        this.finished = true;
        settle(false);
        this.resolveClosed();
      });
    });
  }

  sendFrame(frame: Buffer): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(frame, { binary: true });
  }

  sendStop(): void {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send('{"type":"stop"}');
  }

  terminate(): void {
    this.ws?.terminate();
  }
}

// ------------------------------------------------------------------------------------------------
// GraphQL subscriptions

const SEGMENTS_SUBSCRIPTION = 'subscription ($id: ID!) { streamingSessionEvents(sessionId: $id) { type segment { transcript endSeconds } } }';

interface SegmentEvent {
  streamingSessionEvents?: { type?: string; segment?: { endSeconds?: number } | null } | null;
}

/** A few graphql-ws connections, each carrying up to `perConnection` subscriptions. */
export class SubscriptionPool {
  private readonly clients: GqlClient[] = [];
  private readonly unsubscribes: (() => void)[] = [];
  private count = 0;
  errors: string[] = [];
  events = 0;

  constructor(private readonly url: string, private readonly apiKey: string, private readonly perConnection = 50) {}

  private nextClient(): GqlClient {
    const c = Math.floor(this.count++ / this.perConnection);
    while (this.clients.length <= c) {
      this.clients.push(createClient({
        url: this.url, webSocketImpl: WebSocket, connectionParams: { apiKey: this.apiKey }, lazy: false, retryAttempts: 0,
        on: { error: (e) => { this.errors.push(`connection: ${e instanceof Error ? e.message : JSON.stringify(e)}`); } },
      }));
    }
    return this.clients[c]!;
  }

  /** Subscribes to one session's events; segments are matched to the session's utterances. */
  subscribe(sessionId: string, log: UtteranceLog): void {
    const unsubscribe = this.nextClient().subscribe<SegmentEvent>({ query: SEGMENTS_SUBSCRIPTION, variables: { id: sessionId } }, {
      next: (result) => {
        const at = epochMs();
        this.events++;
        if (result.errors?.length) {
          this.errors.push(JSON.stringify(result.errors));
          return;
        }
        const ev = result.data?.streamingSessionEvents;
        if (ev?.type !== 'SEGMENT' || !ev.segment) return;
        const u = log.find(Number(ev.segment.endSeconds));
        if (u) u.sub = Number.isFinite(u.sub) ? Math.max(u.sub, at) : at;
      },
      error: (e) => { this.errors.push(e instanceof Error ? e.message : JSON.stringify(e)); },
      complete: () => undefined,
    });
    this.unsubscribes.push(unsubscribe);
  }

  async close(): Promise<void> {
    for (const u of this.unsubscribes.splice(0)) u();
    await Promise.all(this.clients.splice(0).map((c) => c.dispose()));
  }
}
