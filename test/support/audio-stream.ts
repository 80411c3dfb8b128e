import WebSocket from 'ws';

export interface ServerMessage {
  type: string;
  [key: string]: unknown;
}

export interface StreamCredentials {
  apiKey?: string;
  bearer?: string;
}

/**
 * A client of the audio WebSocket (docs/streaming.md), shaped like what an application sends:
 * it records every server message and the close code.
 */
export class AudioStreamClient {
  readonly messages: ServerMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.messages.push(JSON.parse(data.toString()) as ServerMessage);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
      for (const w of this.waiters.splice(0)) w();
    }));
  }

  /** Opens the socket; credentials go on the upgrade request (omit them to authenticate in the first message). */
  static async open(baseUrl: string, credentials: StreamCredentials = {}, headers: Record<string, string> = {}): Promise<AudioStreamClient> {
    const h: Record<string, string> = { ...headers };
    if (credentials.apiKey) h['x-api-key'] = credentials.apiKey;
    if (credentials.bearer) h.authorization = `Bearer ${credentials.bearer}`;
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/api/v1/speech-services/streams/ws`, { headers: h });
    const client = new AudioStreamClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode}`), { status: res.statusCode })));
      ws.once('error', reject);
    });
    return client;
  }

  send(message: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(message));
  }

  start(options: Record<string, unknown> = {}): void {
    this.send({ type: 'start', ...options });
  }

  audio(pcm: Buffer): void {
    this.ws.send(pcm, { binary: true });
  }

  stop(): void {
    this.send({ type: 'stop' });
  }

  of(type: string): ServerMessage[] {
    return this.messages.filter((m) => m.type === type);
  }

  /** The first message of this type (waiting up to timeoutMs); rejects when the socket closes first. */
  async next(type: string, timeoutMs = 20_000): Promise<ServerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.type === type);
      if (found) return found;
      if (this.ws.readyState === WebSocket.CLOSED) throw new Error(`socket closed before "${type}": ${JSON.stringify(this.messages)}`);
      if (Date.now() > deadline) throw new Error(`no "${type}" within ${timeoutMs} ms: ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  /** Streams PCM in chunks at real-time pace (chunkMs of audio every chunkMs). */
  async streamRealtime(pcm: Buffer, chunkMs = 100): Promise<void> {
    const chunk = 32 * chunkMs;
    const t0 = performance.now();
    for (let off = 0, i = 0; off < pcm.length; off += chunk, i++) {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      this.audio(pcm.subarray(off, off + chunk));
      const wait = t0 + (i + 1) * chunkMs - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }

  close(): void {
    this.ws.terminate();
  }
}
