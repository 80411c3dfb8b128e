import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { GraphQLError } from 'graphql';
import type { Identity, Logger } from '@voxgate/kit';
import { problem, type Problem } from '@voxgate/rest-facade';
import {
  authMessageSchema, CLOSE, CLOSE_FOR_CODE, HANDSHAKE_TIMEOUT_MS, MAX_FRAME_BYTES, OrphanSweeper, startMessageSchema, stopMessageSchema,
  StreamingRefusal, StreamingSessionRunner, type ServerMessage, type StreamingDeps,
} from '@voxgate/sessions/streaming';
import type { EdgeServices, UpgradeEndpoint } from '../edge';
import { clientAddressOf, upgradeCredentials, type SocketCredentials } from '../socket-auth';

export const AUDIO_STREAM_PATH = '/api/v1/speech-services/streams/ws';
/** audio a client may send between `start` and `started` (5 s of real-time audio) */
const PRE_START_BUFFER_BYTES = 5 * 32_000;

type Phase = 'auth' | 'authenticating' | 'start' | 'starting' | 'running' | 'closed';

/** A refused upgrade answers like the REST facade: an RFC 9457 problem, then the connection closes. */
function problemResponse(socket: Duplex, p: Problem): void {
  const body = JSON.stringify(p);
  socket.end(
    `HTTP/1.1 ${p.status} ${p.title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
    + `${p.status === 401 ? 'WWW-Authenticate: Bearer realm="voxgate"\r\n' : ''}Connection: close\r\n\r\n${body}`,
  );
}

function describeZod(e: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return e.issues.map((i) => `${i.path.map(String).join('.') || 'message'}: ${i.message}`).join('; ');
}

/**
 * One connection of the audio WebSocket (docs/streaming.md): authentication (upgrade headers or a
 * first `auth` message), one `start`, audio frames, `stop`. The session itself is the sessions
 * domain's StreamingSessionRunner; this class only speaks the protocol.
 */
class AudioConnection {
  private phase: Phase;
  private runner: StreamingSessionRunner | null = null;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private stopRequested = false;
  /** a `start` sent right behind `auth`, waiting for the authentication to finish */
  private startAfterAuth: unknown = undefined;
  private gone = false;
  private readonly handshakeTimer: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    private identity: Identity | null,
    private readonly meta: { clientAddress: string; userAgent: string | null },
    private readonly services: EdgeServices,
    private readonly deps: StreamingDeps,
    private readonly live: Set<StreamingSessionRunner>,
    private readonly log: Logger,
  ) {
    this.phase = identity ? 'start' : 'auth';
    this.handshakeTimer = setTimeout(() => {
      if (this.phase === 'auth' || this.phase === 'start') this.refuse(CLOSE.TIMEOUT, 'TIMEOUT', `No ${this.phase} message within ${HANDSHAKE_TIMEOUT_MS / 1000} s`);
    }, HANDSHAKE_TIMEOUT_MS);
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.onClose());
    ws.on('error', (err: Error & { code?: string }) => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') void this.runner?.fail(CLOSE.TOO_BIG, 'BAD_USER_INPUT', `Frames are limited to ${MAX_FRAME_BYTES} bytes`);
      else this.log.debug({ err }, 'audio websocket error');
    });
  }

  private send(message: ServerMessage): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Refusal before a session exists: an error message, then the close code. */
  private refuse(closeCode: number, code: string, message: string, extras: Record<string, unknown> = {}): void {
    clearTimeout(this.handshakeTimer);
    this.phase = 'closed';
    this.send({ type: 'error', code, message, ...extras });
    this.ws.close(closeCode, message.slice(0, 120));
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) return this.onAudio(buf);
    let json: unknown;
    try {
      json = JSON.parse(buf.toString('utf8'));
    } catch {
      return this.protocolError('Text frames must be JSON messages');
    }
    const type = (json as { type?: unknown } | null)?.type;
    if (type === 'auth') return void this.onAuth(json);
    if (type === 'start') return void this.onStart(json);
    if (type === 'stop') {
      const parsed = stopMessageSchema.safeParse(json);
      if (!parsed.success) return this.protocolError(describeZod(parsed.error));
      return this.onStop();
    }
    this.protocolError(`Unknown message type ${JSON.stringify(type)} (expected auth, start or stop)`);
  }

  private protocolError(message: string): void {
    if (this.runner) void this.runner.fail(CLOSE.BAD_MESSAGE, 'BAD_USER_INPUT', message);
    else this.refuse(CLOSE.BAD_MESSAGE, 'BAD_USER_INPUT', message);
  }

  private async onAuth(json: unknown): Promise<void> {
    if (this.phase !== 'auth') return this.protocolError(this.identity ? 'Already authenticated' : 'auth must be the first message');
    const parsed = authMessageSchema.safeParse(json);
    if (!parsed.success) return this.refuse(CLOSE.BAD_MESSAGE, 'BAD_USER_INPUT', describeZod(parsed.error));
    this.phase = 'authenticating';
    const credentials: SocketCredentials = { apiKey: parsed.data.apiKey, accessToken: parsed.data.accessToken };
    try {
      this.identity = await this.services.authenticate(credentials, this.meta);
    } catch (e) {
      if (e instanceof GraphQLError && e.extensions.code === 'UNAUTHENTICATED') return this.refuse(CLOSE.UNAUTHENTICATED, 'UNAUTHENTICATED', e.message);
      this.log.error({ err: e }, 'audio websocket authentication failed');
      return this.refuse(CLOSE.INTERNAL, 'INTERNAL_SERVER_ERROR', 'Authentication could not be completed');
    }
    if (this.gone) return;
    this.phase = 'start';
    this.send({ type: 'authenticated', tenant: this.identity.tenantName, userId: this.identity.userId ?? '' });
    if (this.startAfterAuth !== undefined) await this.onStart(this.startAfterAuth);
  }

  private async onStart(json: unknown): Promise<void> {
    if (this.phase === 'auth') return this.refuse(CLOSE.UNAUTHENTICATED, 'UNAUTHENTICATED', 'Authenticate first: send an auth message or credentials on the upgrade request');
    if (this.phase === 'authenticating' && this.startAfterAuth === undefined) {
      this.startAfterAuth = json; // clients may send auth and start back to back
      return;
    }
    if (this.phase !== 'start') return this.protocolError('start may be sent once');
    const parsed = startMessageSchema.safeParse(json);
    if (!parsed.success) return this.refuse(CLOSE.BAD_MESSAGE, 'BAD_USER_INPUT', `Invalid start message: ${describeZod(parsed.error)}`);
    clearTimeout(this.handshakeTimer);
    this.phase = 'starting';
    const transport = {
      send: (m: ServerMessage) => this.send(m),
      close: (code: number, reason: string) => {
        this.phase = 'closed';
        if (this.ws.readyState === this.ws.OPEN) this.ws.close(code, reason);
      },
    };
    try {
      this.runner = await StreamingSessionRunner.open(this.deps, this.identity as Identity, parsed.data, transport, this.meta);
    } catch (e) {
      if (e instanceof StreamingRefusal) return this.refuse(e.closeCode, e.code, e.message, e.extras);
      if (e instanceof GraphQLError) {
        const code = String(e.extensions.code ?? 'INTERNAL_SERVER_ERROR');
        return this.refuse(CLOSE_FOR_CODE[code] ?? CLOSE.INTERNAL, code, e.message);
      }
      this.log.error({ err: e }, 'starting a streaming session failed');
      return this.refuse(CLOSE.INTERNAL, 'INTERNAL_SERVER_ERROR', 'The session could not be started');
    }
    const runner = this.runner;
    if ((this.phase as Phase) === 'closed' && !this.gone) {
      // refused while the engine connected (a second start, bad JSON, too much early audio)
      void runner.fail(CLOSE.BAD_MESSAGE, 'BAD_USER_INPUT', 'The connection was refused while the session started');
      return;
    }
    this.live.add(runner);
    void runner.done.then(() => this.live.delete(runner));
    if (this.phase === 'starting') this.phase = 'running';
    // audio buffered while the engine connected is bounded by PRE_START_BUFFER_BYTES, not by the byte rate
    for (const chunk of this.pending.splice(0)) runner.audio(chunk, { buffered: true });
    this.pendingBytes = 0;
    if (this.gone) runner.disconnected();
    else if (this.stopRequested) runner.stop();
  }

  private onAudio(chunk: Buffer): void {
    if (this.phase === 'running' && this.runner) return this.runner.audio(chunk);
    if (this.phase === 'starting') {
      // audio sent right after `start` waits for the engine instead of being refused
      this.pendingBytes += chunk.length;
      if (this.pendingBytes > PRE_START_BUFFER_BYTES) return this.refuse(CLOSE.AUDIO_RATE, 'RATE_LIMITED', 'Too much audio before the session started');
      this.pending.push(chunk);
      return;
    }
    if (this.phase === 'closed') return;
    this.protocolError('Audio before start: send a start message first');
  }

  private onStop(): void {
    if (this.phase === 'starting') {
      this.stopRequested = true;
      return;
    }
    if (!this.runner) return this.protocolError('stop before start');
    this.runner.stop();
  }

  private onClose(): void {
    this.gone = true;
    clearTimeout(this.handshakeTimer);
    this.runner?.disconnected();
  }
}

/** The audio WebSocket endpoint of the edge. */
export function audioStreamEndpoint(services: EdgeServices, deps: StreamingDeps): UpgradeEndpoint {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  const live = new Set<StreamingSessionRunner>();
  const sweeper = new OrphanSweeper(deps.records, deps.ledger, deps.log, deps.orphanAfterMs, deps.concurrency);
  sweeper.start();

  return {
    path: AUDIO_STREAM_PATH,
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
      const meta = { clientAddress: clientAddressOf(req) ?? 'unknown', userAgent: (req.headers['user-agent'] as string | undefined) ?? null };
      const credentials = upgradeCredentials(req);
      if (credentials && 'invalid' in credentials) return problemResponse(socket, problem(401, 'UNAUTHENTICATED', credentials.invalid));
      const accept = (identity: Identity | null) => {
        wss.handleUpgrade(req, socket, head, (ws) => { new AudioConnection(ws, identity, meta, services, deps, live, deps.log); });
      };
      if (!credentials) return accept(null);
      services.authenticate(credentials, meta).then(accept, (e: unknown) => {
        if (e instanceof GraphQLError && e.extensions.code === 'UNAUTHENTICATED') return problemResponse(socket, problem(401, 'UNAUTHENTICATED', e.message));
        deps.log.error({ err: e }, 'audio websocket authentication failed');
        problemResponse(socket, problem(500, 'INTERNAL_SERVER_ERROR', 'Authentication could not be completed'));
      });
    },
    async close() {
      sweeper.stop();
      await Promise.all([...live].map((r) => r.shutdown()));
      deps.live.stop();
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      deps.engines.close();
    },
  };
}
