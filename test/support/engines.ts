import * as grpc from '@grpc/grpc-js';
import {
  loadEngineServiceDefinition,
  type AsrHealthRequest, type AsrHealthResponse, type AsrModelInfo, type AsrModelInfoRequest, type EmbedRequest, type EmbedResponse, type HealthRequest, type HealthResponse, type ModelInfoRequest,
  type SentenceVerificationModelInfo, type SpeakerEmbeddingModelInfo, type VerifyRequest, type VerifyResponse,
} from '@voxgate/kit/grpc';

export { grpc };

type Unary<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => void;

export interface ReceivedCall {
  method: string;
  metadata: Record<string, string>;
  authority: string;
  /** the full gRPC path, e.g. `/voxgate.engines.v1.SpeechRecognition/Health` (which service was called) */
  path: string;
}

/**
 * A real grpc-js server implementing the engine contracts (a test double of an outside engine):
 * SentenceVerification and SpeakerEmbedding fully, SpeechRecognition's unary Health and
 * GetModelInfo (its streaming methods answer UNIMPLEMENTED).
 */
export interface EngineDouble {
  name: string;
  port: number;
  /** `127.0.0.1:<port>` */
  address: string;
  calls: ReceivedCall[];
  /** what Health reports */
  healthStatus: HealthResponse['status'];
  /** delay before Health answers, in ms */
  healthDelayMs: number;
  stop(): Promise<void>;
}

export interface EngineOptions {
  name: string;
  port?: number;
  credentials?: grpc.ServerCredentials;
}

function plainMetadata(md: grpc.Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md.getMap())) out[k] = typeof v === 'string' ? v : v.toString('utf8');
  return out;
}

export async function startEngineDouble(opts: EngineOptions): Promise<EngineDouble> {
  const server = new grpc.Server();
  const engine: EngineDouble = {
    name: opts.name, port: 0, address: '', calls: [], healthStatus: 'SERVING', healthDelayMs: 0,
    stop: async () => { server.forceShutdown(); },
  };
  const record = (method: string, call: grpc.ServerUnaryCall<unknown, unknown>) =>
    engine.calls.push({ method, metadata: plainMetadata(call.metadata), authority: call.getHost(), path: call.getPath() });

  const health: Unary<HealthRequest, HealthResponse> = (call, cb) => {
    record('Health', call);
    const answer = () => cb(null, { status: engine.healthStatus, message: engine.name });
    if (engine.healthDelayMs > 0) setTimeout(answer, engine.healthDelayMs);
    else answer();
  };
  const verify: Unary<VerifyRequest, VerifyResponse> = (call, cb) => {
    record('Verify', call);
    cb(null, {
      score: 0.75, recognizedText: call.request.expectedText, speechDurationMs: 1200, audioDurationMs: 1500,
      recognitionConfidence: 0.9, modelName: engine.name, modelVersion: '1.0.0', warnings: [],
    });
  };
  const sentverInfo: Unary<ModelInfoRequest, SentenceVerificationModelInfo> = (call, cb) => {
    record('GetModelInfo', call);
    cb(null, {
      name: engine.name, version: '1.0.0', description: 'double', supportedLocales: ['en-US'], supportedSampleRatesHz: [16000],
      supportedEncodings: ['PCM_S16LE'], maxExpectedTextLength: 200, maxAudioDurationMs: 15000,
    });
  };
  const embed: Unary<EmbedRequest, EmbedResponse> = (call, cb) => {
    record('Embed', call);
    cb(null, {
      embedding: [0, 0.25, 0.5, 0.75], normalized: false, quality: 0.8, speechDurationMs: 900, audioDurationMs: 1000,
      modelName: engine.name, modelVersion: '1.0.0', warnings: [],
    });
  };
  const embeddingInfo: Unary<ModelInfoRequest, SpeakerEmbeddingModelInfo> = (call, cb) => {
    record('GetModelInfo', call);
    cb(null, {
      name: engine.name, version: '1.0.0', description: 'double', dimension: 4, similarityMetric: 'cosine', supportedSampleRatesHz: [16000],
      supportedEncodings: ['PCM_S16LE'], supportedLocales: [], minSpeechDurationMs: 500, maxAudioDurationMs: 30000,
    });
  };
  const asrHealth: Unary<AsrHealthRequest, AsrHealthResponse> = (call, cb) => {
    record('Health', call);
    const answer = () => cb(null, { status: engine.healthStatus, message: engine.name });
    if (engine.healthDelayMs > 0) setTimeout(answer, engine.healthDelayMs);
    else answer();
  };
  const asrInfo: Unary<AsrModelInfoRequest, AsrModelInfo> = (call, cb) => {
    record('GetModelInfo', call);
    cb(null, {
      name: engine.name, version: '1.0.0', description: 'double', supportedLanguages: ['en-US'], supportedSampleRatesHz: [16000],
      supportedEncodings: ['PCM_S16LE'], maxConcurrentStreams: 4, supportsInterimResults: true, supportsWordTimings: true,
    });
  };
  server.addService(loadEngineServiceDefinition('SentenceVerification'), { Verify: verify, GetModelInfo: sentverInfo, Health: health });
  server.addService(loadEngineServiceDefinition('SpeakerEmbedding'), { Embed: embed, GetModelInfo: embeddingInfo, Health: health });
  server.addService(loadEngineServiceDefinition('SpeechRecognition'), { Health: asrHealth, GetModelInfo: asrInfo });
  engine.port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${opts.port ?? 0}`, opts.credentials ?? grpc.ServerCredentials.createInsecure(), (err, port) =>
      (err ? reject(err) : resolve(port)));
  });
  engine.address = `127.0.0.1:${engine.port}`;
  return engine;
}

/** A loopback port nothing listens on (bound once, then released). */
export async function deadPort(): Promise<number> {
  const e = await startEngineDouble({ name: 'dead' });
  await e.stop();
  return e.port;
}

// one throwaway PKI for every gRPC TLS test (the kit's tests own it)
export { makeTestPki, type TestPki } from '../../packages/kit/test/grpc/helpers';
