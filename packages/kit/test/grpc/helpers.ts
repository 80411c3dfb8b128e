import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { loadEngineServiceDefinition } from '../../src/grpc/client';
import type {
  EmbedRequest,
  EmbedResponse,
  HealthRequest,
  HealthResponse,
  ModelInfoRequest,
  SentenceVerificationModelInfo,
  SpeakerEmbeddingModelInfo,
  VerifyRequest,
  VerifyResponse,
} from '../../src/grpc/types';

type Unary<Req, Res> = (call: grpc.ServerUnaryCall<Req, Res>, callback: grpc.sendUnaryData<Res>) => void;

/** A real grpc-js server implementing both engine contracts (a test double of an outside engine). */
export interface FakeEngine {
  name: string;
  host: string;
  port: number;
  address: string;
  /** Metadata of every call received, in order. */
  calls: { method: string; metadata: grpc.Metadata; authority: string }[];
  /** Extra delay before answering Verify / Embed, in ms. */
  delayMs: number;
  /** Number of floats in Embed responses. */
  embeddingSize: number;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  host?: string;
  port?: number;
  credentials?: grpc.ServerCredentials;
}

function delay<T>(engine: FakeEngine, fn: () => T, cb: (v: T) => void): void {
  if (engine.delayMs > 0) setTimeout(() => cb(fn()), engine.delayMs);
  else cb(fn());
}

export async function startFakeEngine(opts: StartOptions): Promise<FakeEngine> {
  const server = new grpc.Server();
  const host = opts.host ?? '127.0.0.1';
  const engine: FakeEngine = {
    name: opts.name,
    host,
    port: 0,
    address: '',
    calls: [],
    delayMs: 0,
    embeddingSize: 4,
    stop: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
  const record = (method: string, call: grpc.ServerUnaryCall<unknown, unknown>) =>
    engine.calls.push({ method, metadata: call.metadata, authority: call.getHost() });

  const verify: Unary<VerifyRequest, VerifyResponse> = (call, cb) => {
    record('Verify', call);
    delay(
      engine,
      () => ({
        score: 0.75,
        recognizedText: `${call.request.expectedText}`,
        speechDurationMs: 1200,
        audioDurationMs: 1500,
        recognitionConfidence: 0.9,
        modelName: engine.name,
        modelVersion: '1.0.0',
        warnings: [],
      }),
      (v) => cb(null, v),
    );
  };
  const sentverInfo: Unary<ModelInfoRequest, SentenceVerificationModelInfo> = (call, cb) => {
    record('GetModelInfo', call);
    cb(null, {
      name: engine.name,
      version: '1.0.0',
      description: 'fake',
      supportedLocales: ['en-US'],
      supportedSampleRatesHz: [16000],
      supportedEncodings: ['PCM_S16LE'],
      maxExpectedTextLength: 200,
      maxAudioDurationMs: 15000,
    });
  };
  const health: Unary<HealthRequest, HealthResponse> = (call, cb) => {
    record('Health', call);
    cb(null, { status: 'SERVING', message: engine.name });
  };
  const embed: Unary<EmbedRequest, EmbedResponse> = (call, cb) => {
    record('Embed', call);
    delay(
      engine,
      () => ({
        embedding: Array.from({ length: engine.embeddingSize }, (_, i) => i / engine.embeddingSize),
        normalized: false,
        quality: 0.8,
        speechDurationMs: 900,
        audioDurationMs: 1000,
        modelName: engine.name,
        modelVersion: '1.0.0',
        warnings: [],
      }),
      (v) => cb(null, v),
    );
  };
  const embeddingInfo: Unary<ModelInfoRequest, SpeakerEmbeddingModelInfo> = (call, cb) => {
    record('GetModelInfo', call);
    cb(null, {
      name: engine.name,
      version: '1.0.0',
      description: 'fake',
      dimension: engine.embeddingSize,
      similarityMetric: 'cosine',
      supportedSampleRatesHz: [16000],
      supportedEncodings: ['PCM_S16LE'],
      supportedLocales: [],
      minSpeechDurationMs: 500,
      maxAudioDurationMs: 30000,
    });
  };
  server.addService(loadEngineServiceDefinition('SentenceVerification'), { Verify: verify, GetModelInfo: sentverInfo, Health: health });
  server.addService(loadEngineServiceDefinition('SpeakerEmbedding'), { Embed: embed, GetModelInfo: embeddingInfo, Health: health });
  const bindHost = host.includes(':') ? `[${host}]` : host;
  engine.port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${bindHost}:${opts.port ?? 0}`, opts.credentials ?? grpc.ServerCredentials.createInsecure(), (err, port) =>
      err ? reject(err) : resolve(port),
    );
  });
  engine.address = `${bindHost}:${engine.port}`;
  return engine;
}

/** A loopback port nothing listens on (bound once, then released). */
export async function deadPort(): Promise<number> {
  const e = await startFakeEngine({ name: 'dead' });
  const port = e.port;
  await e.stop();
  return port;
}

export const PCM = { encoding: 'PCM_S16LE', sampleRateHz: 16000, channels: 1 } as const;

export function verifyRequest(text = 'open sesame'): VerifyRequest {
  return { audio: Buffer.alloc(320), format: PCM, expectedText: text, locale: 'en-US' };
}

export function countBy(engines: FakeEngine[]): Record<string, number> {
  return Object.fromEntries(engines.map((e) => [e.name, e.calls.length]));
}

// --- TLS material ---------------------------------------------------------------------------------

export interface TestPki {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  ca: Buffer;
  serverCert: Buffer;
  serverKey: Buffer;
  cleanup(): void;
}

/** A throwaway CA, a server certificate for `serverName` and a client certificate, via openssl. */
export function makeTestPki(serverName: string): TestPki {
  const dir = mkdtempSync(path.join(tmpdir(), 'voxgate-grpc-pki-'));
  const f = (n: string) => path.join(dir, n);
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.crt'), '-days', '2', '-subj', '/CN=Voxgate Test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  const leaf = (name: string, cn: string, ext: string) => {
    writeFileSync(f(`${name}.ext`), ext);
    run('req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${cn}`);
    run('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.crt'), '-CAkey', f('ca.key'), '-CAcreateserial',
      '-out', f(`${name}.crt`), '-days', '2', '-extfile', f(`${name}.ext`));
  };
  leaf('server', serverName, `subjectAltName=DNS:${serverName}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`);
  leaf('client', 'voxgate-gateway', 'extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n');
  return {
    dir,
    caFile: f('ca.crt'),
    serverCertFile: f('server.crt'),
    serverKeyFile: f('server.key'),
    clientCertFile: f('client.crt'),
    clientKeyFile: f('client.key'),
    ca: readFileSync(f('ca.crt')),
    serverCert: readFileSync(f('server.crt')),
    serverKey: readFileSync(f('server.key')),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
