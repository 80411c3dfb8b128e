/**
 * A benchmark double of a speech-recognition engine (voxgate.engines.v1.SpeechRecognition,
 * schema/proto/asr.proto) that recognises nothing: it takes the audio and answers one final
 * segment, transcript "ack" (one word), whenever a chunk that is entirely silence (all-zero
 * samples) follows a chunk with non-zero samples. The client decides exactly when an utterance
 * ends, and the engine's own cost is close to nothing, so what a session costs beyond it is the
 * platform's.
 *
 * Each emitted segment is recorded with the engine-side time it was written (epoch milliseconds
 * with sub-millisecond resolution, comparable with other processes of this host) and what
 * identifies its session: the config's `requestId` and a tag the client can put in its audio (a
 * chunk whose first sample is {@link TAG_MAGIC} carries a 32-bit tag in samples 1 and 2).
 *
 * Run as a child process (`node --import tsx test/bench/ack-engine.ts` with an IPC channel) it
 * answers `{ type: 'ready', port }`, then `{ type: 'emits' }` with the records (cleared after),
 * `{ type: 'stats' }` with counters; it exits when the parent disconnects.
 */
import http2 from 'node:http2';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import {
  loadEngineServiceDefinition,
  type AsrHealthResponse, type AsrModelInfo, type AsrRecognizeRequest, type AsrRecognizeResponse, type AsrSegment,
  type AsrStreamingRecognizeRequest, type AsrStreamingRecognizeResponse,
} from '@voxgate/kit/grpc';

export const ACK_MODEL_NAME = 'bench-ack';
export const TAG_MAGIC = 0x5a5a;
const BYTES_PER_SECOND = 32_000;

export interface AckEmit {
  /** the stream's config.requestId ('' when none) */
  requestId: string;
  /** the tag found in the stream's audio (-1 when none) */
  tag: number;
  /** 0-based segment number on the stream */
  index: number;
  /** end of the utterance, seconds from the stream's first audio byte */
  endSeconds: number;
  /** when the segment was written, epoch ms */
  emitMs: number;
}

export interface AckStats {
  streamsOpened: number;
  streamsActive: number;
  streamsMax: number;
  chunks: number;
  bytes: number;
  segments: number;
  /** chunk arrivals on a stream more than 250 ms after the previous one (the platform stalled a stream) */
  gapsOver250ms: number;
  /** the longest such gap, ms */
  maxGapMs: number;
}

export interface AckEngine {
  port: number;
  address: string;
  stats: AckStats;
  /** Takes the records made so far. */
  takeEmits(): AckEmit[];
  close(): Promise<void>;
}

const now = (): number => performance.timeOrigin + performance.now();
const ZERO = Buffer.alloc(64 * 1024);

function allZero(b: Uint8Array): boolean {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  for (let off = 0; off < buf.length; off += ZERO.length) {
    const end = Math.min(buf.length, off + ZERO.length);
    if (buf.compare(ZERO, 0, end - off, off, end) !== 0) return false;
  }
  return true;
}

function statusError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

const segmentOf = (index: number, startSeconds: number, endSeconds: number): AsrSegment => ({
  index, transcript: 'ack', words: [{ word: 'ack', startSeconds, endSeconds, confidence: 1 }], startSeconds, endSeconds, confidence: 1,
});

/**
 * An experiment, off by default: grpc-js servers keep Node's HTTP/2 receive windows (64 KiB per
 * connection), so every stream a client multiplexes on one connection shares 64 KiB in flight per
 * round trip through the engine's event loop. With `connectionWindowBytes` the double raises its
 * connection window (and the per-stream initial window) to see whether that is what limits.
 */
function widenHttp2Windows(bytes: number): void {
  const original = http2.createServer.bind(http2) as (options: http2.ServerOptions) => http2.Http2Server;
  (http2 as { createServer: (options: http2.ServerOptions) => http2.Http2Server }).createServer = (options: http2.ServerOptions) => {
    const server = original({ ...options, settings: { ...options.settings, initialWindowSize: Math.min(bytes, 2 ** 31 - 1) } });
    server.on('session', (session) => session.setLocalWindowSize(bytes));
    return server;
  };
}

export async function startAckEngine(options: { host?: string; port?: number; connectionWindowBytes?: number } = {}): Promise<AckEngine> {
  if (options.connectionWindowBytes) widenHttp2Windows(options.connectionWindowBytes);
  let emits: AckEmit[] = [];
  const stats: AckStats = { streamsOpened: 0, streamsActive: 0, streamsMax: 0, chunks: 0, bytes: 0, segments: 0, gapsOver250ms: 0, maxGapMs: 0 };

  const streamingRecognize = (call: grpc.ServerDuplexStream<AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse>) => {
    let configured = false;
    let requestId = '';
    let tag = -1;
    let bytes = 0;
    let previousHadSound = false;
    let utteranceStart = 0;
    let index = 0;
    let finished = false;
    let lastChunkAt = 0;
    stats.streamsOpened++;
    stats.streamsActive++;
    stats.streamsMax = Math.max(stats.streamsMax, stats.streamsActive);
    const finish = () => {
      if (finished) return;
      finished = true;
      stats.streamsActive--;
    };
    const emit = (endSeconds: number) => {
      const emitMs = now();
      call.write({ segment: segmentOf(index, utteranceStart, endSeconds), audioProcessedSeconds: bytes / BYTES_PER_SECOND });
      emits.push({ requestId, tag, index, endSeconds, emitMs });
      stats.segments++;
      index++;
    };
    call.on('data', (msg: AsrStreamingRecognizeRequest) => {
      if (finished) return;
      if (!configured) {
        if (msg.request !== 'config' || !msg.config) {
          finish();
          call.emit('error', statusError(grpc.status.INVALID_ARGUMENT, 'the first message must carry config'));
          return;
        }
        configured = true;
        requestId = msg.config.requestId ?? '';
        return;
      }
      if (msg.request !== 'audio') {
        finish();
        call.emit('error', statusError(grpc.status.INVALID_ARGUMENT, 'config may only be sent once, first'));
        return;
      }
      const audio = msg.audio ?? new Uint8Array(0);
      const arrived = performance.now();
      if (lastChunkAt > 0) {
        const gap = arrived - lastChunkAt;
        if (gap > 250) stats.gapsOver250ms++;
        if (gap > stats.maxGapMs) stats.maxGapMs = gap;
      }
      lastChunkAt = arrived;
      stats.chunks++;
      stats.bytes += audio.length;
      const offset = bytes / BYTES_PER_SECOND;
      bytes += audio.length;
      if (audio.length >= 6) {
        const b = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
        if (b.readUInt16LE(0) === TAG_MAGIC) tag = (b.readUInt16LE(2) | (b.readUInt16LE(4) << 16)) >>> 0;
      }
      if (audio.length === 0) return;
      if (!allZero(audio)) {
        if (!previousHadSound) utteranceStart = offset;
        previousHadSound = true;
      } else if (previousHadSound) {
        previousHadSound = false;
        emit(offset);
      }
    });
    call.on('end', () => {
      if (finished) return;
      // the contract's last segment for speech still in progress at half-close
      if (previousHadSound) emit(bytes / BYTES_PER_SECOND);
      finish();
      call.end();
    });
    call.on('cancelled', finish);
    call.on('error', finish);
  };

  const recognize = (call: grpc.ServerUnaryCall<AsrRecognizeRequest, AsrRecognizeResponse>, callback: grpc.sendUnaryData<AsrRecognizeResponse>) => {
    const seconds = (call.request.audio?.length ?? 0) / BYTES_PER_SECOND;
    const segments = seconds > 0 ? [segmentOf(0, 0, seconds)] : [];
    callback(null, { segments, transcript: segments.length ? 'ack' : '', audioDurationSeconds: seconds, realTimeFactor: 0, modelName: ACK_MODEL_NAME, modelVersion: '1' });
  };

  const getModelInfo = (_call: grpc.ServerUnaryCall<unknown, AsrModelInfo>, callback: grpc.sendUnaryData<AsrModelInfo>) => {
    callback(null, {
      name: ACK_MODEL_NAME, version: '1', description: 'benchmark double: acknowledges audio, one "ack" segment per utterance the client ends with a silent chunk',
      supportedLanguages: ['en-US'], supportedSampleRatesHz: [16_000], supportedEncodings: ['PCM_S16LE'], maxConcurrentStreams: 1_000_000,
      supportsInterimResults: false, supportsWordTimings: true,
    });
  };

  const health = (_call: grpc.ServerUnaryCall<unknown, AsrHealthResponse>, callback: grpc.sendUnaryData<AsrHealthResponse>) => {
    callback(null, { status: 'SERVING', message: `${stats.streamsActive} streams` });
  };

  const server = new grpc.Server();
  server.addService(loadEngineServiceDefinition('SpeechRecognition'), {
    StreamingRecognize: streamingRecognize, Recognize: recognize, GetModelInfo: getModelInfo, Health: health,
  });
  const host = options.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return {
    port,
    address: `${host}:${port}`,
    stats,
    takeEmits: () => {
      const out = emits;
      emits = [];
      return out;
    },
    close: () => new Promise<void>((resolve) => {
      const timer = setTimeout(() => { server.forceShutdown(); resolve(); }, 2_000);
      server.tryShutdown(() => { clearTimeout(timer); resolve(); });
    }),
  };
}

/** Messages of the child-process mode. */
export type AckRequest = { type: 'emits' } | { type: 'stats'; reset?: boolean };
export type AckReply = { type: 'ready'; port: number } | { type: 'emits'; emits: AckEmit[] } | { type: 'stats'; stats: AckStats };

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.send) {
  const engine = await startAckEngine({ port: Number(process.env.PORT ?? 0), connectionWindowBytes: Number(process.env.ACK_CONNECTION_WINDOW_BYTES ?? 0) || undefined });
  const reply = (m: AckReply) => process.send?.(m);
  process.on('message', (m: AckRequest) => {
    if (m.type === 'emits') reply({ type: 'emits', emits: engine.takeEmits() });
    else if (m.type === 'stats') {
      reply({ type: 'stats', stats: { ...engine.stats } });
      if (m.reset) {
        engine.stats.gapsOver250ms = 0;
        engine.stats.maxGapMs = 0;
      }
    }
  });
  process.on('disconnect', () => {
    void engine.close().then(() => process.exit(0));
  });
  reply({ type: 'ready', port: engine.port });
}
