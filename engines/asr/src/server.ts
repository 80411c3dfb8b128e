/**
 * gRPC server of the reference ASR engine (voxgate.engines.v1.SpeechRecognition, see
 * schema/proto/asr.proto) on pocketsphinx.
 *
 * Decoders: a pocketsphinx decoder holds the acoustic model, dictionary and language model
 * (~0.25 s to create on a warm page cache, tens of MB of native memory) and cannot be shared by
 * two streams at once; 5prealpha has no public API to share the loaded model between decoders.
 * So the engine keeps a pool: one decoder is created at start-up, more are created lazily when
 * streams overlap (the first stream beyond the idle ones pays the load time), and a finished
 * stream returns its decoder for the next one. Beyond `maxDecoders` concurrent recognitions the
 * engine answers RESOURCE_EXHAUSTED. Node runs all decoders on its one thread, one call at a time.
 */
import * as grpc from '@grpc/grpc-js';
import { loadEngineServiceDefinition } from '@voxgate/kit/grpc';
import { DEFAULT_MODEL_DIR, Decoder, Recognizer, SAMPLE_RATE_HZ, modelInstalled, type RecognizedSegment } from './pocketsphinx';
import type {
  AsrHealthResponse,
  AsrModelInfo,
  AsrRecognitionConfig,
  AsrRecognizeRequest,
  AsrRecognizeResponse,
  AsrSegment,
  AsrStreamingRecognizeRequest,
  AsrStreamingRecognizeResponse,
} from './types';

export const MODEL_NAME = 'pocketsphinx-en-us';
export const MODEL_VERSION = '5prealpha-cmusphinx-en-us-5.2';


/** grpc-js definition of SpeechRecognition (loaded once, with the kit's proto-loader options). */
/** The contract as the kit's engine client sees it: server and callers load one definition. */
export function loadAsrServiceDefinition(): grpc.ServiceDefinition {
  return loadEngineServiceDefinition('SpeechRecognition');
}

/** Lazily grown pool of decoders; see the module comment for the cost. */
export class DecoderPool {
  private readonly idle: Decoder[] = [];
  private busy = 0;
  private closed = false;

  constructor(
    readonly maxDecoders: number,
    private readonly modelDir: string,
  ) {}

  get inUse(): number {
    return this.busy;
  }

  get created(): number {
    return this.busy + this.idle.length;
  }

  /** Creates decoders up to `n` idle ones (start-up warm-up). */
  warm(n: number): void {
    while (this.idle.length < n && this.created < this.maxDecoders) this.idle.push(new Decoder({ modelDir: this.modelDir }));
  }

  /** A decoder for one recognition, or null when all `maxDecoders` are busy. */
  acquire(): Decoder | null {
    if (this.closed) return null;
    const d = this.idle.pop() ?? (this.created < this.maxDecoders ? new Decoder({ modelDir: this.modelDir }) : null);
    if (d) this.busy++;
    return d;
  }

  release(d: Decoder): void {
    this.busy--;
    if (this.closed) d.free();
    else this.idle.push(d);
  }

  /** Frees idle decoders now and busy ones when they are released. */
  close(): void {
    this.closed = true;
    for (const d of this.idle.splice(0)) d.free();
  }
}

export interface AsrEngineOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Concurrent recognitions (streams + files); default 16. */
  maxDecoders?: number;
  /** Decoders created at start-up; default 1. */
  warmDecoders?: number;
  modelDir?: string;
}

export interface AsrEngine {
  port: number;
  pool: DecoderPool;
  close(): Promise<void>;
}

function statusError(code: grpc.status, details: string): grpc.ServiceError {
  return Object.assign(new Error(details), { code, details, metadata: new grpc.Metadata() });
}

/** Why a config cannot be served, or null. */
function configProblem(config: AsrRecognitionConfig | null | undefined): string | null {
  if (!config) return 'the first message must carry config';
  const f = config.format;
  if (!f || f.encoding !== 'PCM_S16LE') return `encoding must be PCM_S16LE (got ${f?.encoding ?? 'none'})`;
  if (f.sampleRateHz !== SAMPLE_RATE_HZ) return `sample_rate_hz must be ${SAMPLE_RATE_HZ} (got ${f.sampleRateHz})`;
  if (f.channels !== 0 && f.channels !== 1) return `channels must be 1 (got ${f.channels})`;
  if (config.language && !/^en(-US)?$/i.test(config.language)) return `language ${config.language} is not supported (en-US only)`;
  if (config.model && config.model !== MODEL_NAME) return `model ${config.model} is not served here (only ${MODEL_NAME})`;
  return null;
}

/** Little-endian bytes to samples (copied: gRPC buffers may be unaligned). */
function toSamples(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length >> 1);
  new Uint8Array(out.buffer).set(bytes.subarray(0, out.length * 2));
  return out;
}

/** Strips a RIFF/WAVE header when there is one; returns the PCM bytes of the data chunk. */
export function pcmFromWav(bytes: Uint8Array): Uint8Array {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 12 || b.toString('ascii', 0, 4) !== 'RIFF' || b.toString('ascii', 8, 12) !== 'WAVE') return bytes;
  let off = 12;
  while (off + 8 <= b.length) {
    const id = b.toString('ascii', off, off + 4);
    const size = b.readUInt32LE(off + 4);
    if (id === 'data') return bytes.subarray(off + 8, Math.min(b.length, off + 8 + size));
    off += 8 + size + (size & 1);
  }
  return bytes.subarray(bytes.length);
}

function toAsrSegment(s: RecognizedSegment, index: number): AsrSegment {
  return {
    index,
    transcript: s.transcript,
    words: s.words.map((w) => ({ word: w.word, startSeconds: w.startSeconds, endSeconds: w.endSeconds, confidence: w.confidence })),
    startSeconds: s.startSeconds,
    endSeconds: s.endSeconds,
    confidence: s.confidence,
  };
}

/** Starts the engine; resolves once it listens. */
export async function startAsrEngine(options: AsrEngineOptions = {}): Promise<AsrEngine> {
  const modelDir = options.modelDir ?? DEFAULT_MODEL_DIR;
  if (!modelInstalled(modelDir)) throw new Error(`pocketsphinx model not found in ${modelDir} (install pocketsphinx-en-us)`);
  const pool = new DecoderPool(options.maxDecoders ?? 16, modelDir);
  pool.warm(options.warmDecoders ?? 1);
  let serving = true;

  const streamingRecognize = (call: grpc.ServerDuplexStream<AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse>) => {
    let decoder: Decoder | null = null;
    let recognizer: Recognizer | null = null;
    let carry: Uint8Array | null = null;
    let segments = 0;
    let ended = false;
    const release = () => {
      if (recognizer && !recognizer.done) recognizer.abort();
      if (decoder) pool.release(decoder);
      decoder = null;
      recognizer = null;
    };
    const fail = (code: grpc.status, details: string) => {
      if (ended) return;
      ended = true;
      release();
      call.emit('error', statusError(code, details));
    };
    const processed = () => recognizer?.audioSeconds ?? 0;
    call.on('data', (msg: AsrStreamingRecognizeRequest) => {
      if (ended) return;
      try {
        if (!recognizer) {
          if (msg.request !== 'config') return fail(grpc.status.INVALID_ARGUMENT, 'the first message must carry config');
          const problem = configProblem(msg.config);
          if (problem) return fail(grpc.status.INVALID_ARGUMENT, problem);
          decoder = pool.acquire();
          if (!decoder) return fail(grpc.status.RESOURCE_EXHAUSTED, `all ${pool.maxDecoders} decoders are busy`);
          const interim = msg.config?.interimResults === true;
          recognizer = new Recognizer(decoder, {
            partial: interim ? (transcript, startSeconds) => call.write({ partial: { transcript, startSeconds }, audioProcessedSeconds: processed() }) : undefined,
            segment: (s) => call.write({ segment: toAsrSegment(s, segments++), audioProcessedSeconds: processed() }),
          });
          return;
        }
        if (msg.request !== 'audio') return fail(grpc.status.INVALID_ARGUMENT, 'config may only be sent once, first');
        let bytes: Uint8Array = msg.audio ?? new Uint8Array(0);
        if (carry) {
          const joined = new Uint8Array(carry.length + bytes.length);
          joined.set(carry);
          joined.set(bytes, carry.length);
          bytes = joined;
          carry = null;
        }
        if (bytes.length & 1) {
          carry = bytes.slice(bytes.length - 1);
          bytes = bytes.subarray(0, bytes.length - 1);
        }
        recognizer.feed(toSamples(bytes));
      } catch (e) {
        fail(grpc.status.INTERNAL, e instanceof Error ? e.message : String(e));
      }
    });
    call.on('end', () => {
      if (ended) return;
      ended = true;
      try {
        if (!recognizer) {
          call.emit('error', statusError(grpc.status.INVALID_ARGUMENT, 'the stream ended before a config'));
          return;
        }
        recognizer.finish();
        release();
        call.end();
      } catch (e) {
        release();
        call.emit('error', statusError(grpc.status.INTERNAL, e instanceof Error ? e.message : String(e)));
      }
    });
    call.on('cancelled', () => {
      ended = true;
      release();
    });
    call.on('error', () => {
      ended = true;
      release();
    });
  };

  const recognize = (call: grpc.ServerUnaryCall<AsrRecognizeRequest, AsrRecognizeResponse>, callback: grpc.sendUnaryData<AsrRecognizeResponse>) => {
    const problem = configProblem(call.request.config);
    if (problem) return callback(statusError(grpc.status.INVALID_ARGUMENT, problem));
    const decoder = pool.acquire();
    if (!decoder) return callback(statusError(grpc.status.RESOURCE_EXHAUSTED, `all ${pool.maxDecoders} decoders are busy`));
    try {
      const started = performance.now();
      const segments: AsrSegment[] = [];
      const recognizer = new Recognizer(decoder, { segment: (s) => segments.push(toAsrSegment(s, segments.length)) });
      const samples = toSamples(pcmFromWav(call.request.audio ?? new Uint8Array(0)));
      recognizer.feed(samples);
      recognizer.finish();
      const audioSeconds = samples.length / SAMPLE_RATE_HZ;
      callback(null, {
        segments,
        transcript: segments.map((s) => s.transcript).filter(Boolean).join(' '),
        audioDurationSeconds: audioSeconds,
        realTimeFactor: audioSeconds > 0 ? (performance.now() - started) / 1000 / audioSeconds : 0,
        modelName: MODEL_NAME,
        modelVersion: MODEL_VERSION,
      });
    } catch (e) {
      callback(statusError(grpc.status.INTERNAL, e instanceof Error ? e.message : String(e)));
    } finally {
      pool.release(decoder);
    }
  };

  const getModelInfo = (_call: grpc.ServerUnaryCall<unknown, AsrModelInfo>, callback: grpc.sendUnaryData<AsrModelInfo>) => {
    callback(null, {
      name: MODEL_NAME,
      version: MODEL_VERSION,
      description: `CMU Sphinx US English continuous model with its 3-gram language model and CMUdict, decoded in-process by pocketsphinx (${modelDir})`,
      supportedLanguages: ['en-US'],
      supportedSampleRatesHz: [SAMPLE_RATE_HZ],
      supportedEncodings: ['PCM_S16LE'],
      maxConcurrentStreams: pool.maxDecoders,
      supportsInterimResults: true,
      supportsWordTimings: true,
    });
  };

  const health = (_call: grpc.ServerUnaryCall<unknown, AsrHealthResponse>, callback: grpc.sendUnaryData<AsrHealthResponse>) => {
    callback(null, serving
      ? { status: 'SERVING', message: `${pool.inUse}/${pool.maxDecoders} decoders busy` }
      : { status: 'NOT_SERVING', message: 'shutting down' });
  };

  const server = new grpc.Server();
  server.addService(loadAsrServiceDefinition(), {
    StreamingRecognize: streamingRecognize,
    Recognize: recognize,
    GetModelInfo: getModelInfo,
    Health: health,
  });
  const host = options.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${options.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  return {
    port,
    pool,
    close: () =>
      new Promise<void>((resolve) => {
        serving = false;
        const done = () => {
          pool.close();
          resolve();
        };
        const timer = setTimeout(() => server.forceShutdown(), 5_000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          done();
        });
      }),
  };
}
