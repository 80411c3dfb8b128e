import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import type { ChannelOptions } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { grpcDeploymentTlsFromEnv, validateGrpcClientConfig, type GrpcClientConfig, type GrpcDeploymentTls } from './config';
import {
  DEFAULT_DNS_REFRESH_MS,
  DEFAULT_MIN_RESOLUTION_MS,
  OPT_DNS_REFRESH_MS,
  OPT_LOOKUP_ID,
  OPT_MIN_RESOLUTION_MS,
  registerEngineResolvers,
  registerLookup,
  unregisterLookup,
  type HostLookup,
} from './resolvers';
import { parseGrpcTarget, parseHostPort, type ParsedGrpcTarget } from './target';
import type { EngineMethod, EngineServiceMethods, EngineServiceName, EngineStreamingMethods } from './types';

/** Directory of the engine contracts: <repo>/schema/proto (this file is packages/kit/src/grpc). */
export const ENGINE_PROTO_DIR = fileURLToPath(new URL('../../../../schema/proto/', import.meta.url));

const PROTO_FILES: Record<EngineServiceName, string> = {
  SentenceVerification: 'sentence_verification.proto',
  SpeakerEmbedding: 'speaker_embedding.proto',
  SpeechRecognition: 'asr.proto',
};

export const ENGINE_PROTO_PACKAGE = 'voxgate.engines.v1';

/** proto-loader options the client uses; engines written in TS should use the same. */
export const ENGINE_PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  arrays: true,
  oneofs: true,
  includeDirs: [ENGINE_PROTO_DIR],
};

/** The configuration cannot become a channel (invalid fields, unreadable TLS files). */
export class GrpcConfigError extends Error {
  override readonly name = 'GrpcConfigError';
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** A call to an engine failed; `message` names the service, method and target. */
export class EngineCallError extends Error {
  override readonly name = 'EngineCallError';
  constructor(
    message: string,
    readonly code: grpc.status,
    readonly details: string,
    readonly service: EngineServiceName,
    readonly method: string,
    readonly target: string,
  ) {
    super(message);
  }
  get codeName(): string {
    return grpc.status[this.code] ?? String(this.code);
  }
}

const definitions = new Map<EngineServiceName, grpc.ServiceDefinition>();

function isServiceDefinition(d: protoLoader.AnyDefinition | undefined): d is protoLoader.ServiceDefinition {
  return d !== undefined && !('format' in d);
}

/**
 * The grpc-js service definition of an engine contract (loaded once from schema/proto). Test
 * doubles and TypeScript engines pass it to `server.addService`.
 */
export function loadEngineServiceDefinition(service: EngineServiceName): grpc.ServiceDefinition {
  const cached = definitions.get(service);
  if (cached) return cached;
  const pkg = protoLoader.loadSync(PROTO_FILES[service], ENGINE_PROTO_LOADER_OPTIONS);
  const def = pkg[`${ENGINE_PROTO_PACKAGE}.${service}`];
  if (!isServiceDefinition(def)) throw new Error(`${PROTO_FILES[service]} does not define service ${service}`);
  const svc = def as grpc.ServiceDefinition;
  definitions.set(service, svc);
  return svc;
}

export interface EngineCallOptions {
  /** Overrides the configured deadline for this call. */
  deadlineMs?: number;
  /** Added to the configured metadata for this call. */
  metadata?: Record<string, string>;
}

/** Request type of method M of a method map (see ./types). */
export type EngineRequest<T, M extends keyof T> = T[M] extends EngineMethod<infer Req, unknown> ? Req : never;
/** Response type of method M of a method map (see ./types). */
export type EngineResponse<T, M extends keyof T> = T[M] extends EngineMethod<unknown, infer Res> ? Res : never;

type StreamRequest<St, M> = M extends keyof St ? (St[M] extends EngineMethod<infer Req, unknown> ? Req : never) : never;
type StreamResponse<St, M> = M extends keyof St ? (St[M] extends EngineMethod<unknown, infer Res> ? Res : never) : never;

export interface EngineStreamOptions {
  /** whole-stream deadline; none by default (a recognition stream lasts as long as its session) */
  deadlineMs?: number | null;
  metadata?: Record<string, string> | null;
}

/** A bidirectional stream: send requests, iterate responses; iteration throws {@link EngineCallError}. */
export interface EngineStream<Req, Res> extends AsyncIterable<Res> {
  /** false when the transport buffer is full (wait for it to drain before sending more) */
  send(message: Req): boolean;
  end(): void;
  cancel(): void;
}

export interface EngineClient<T, St = Record<never, never>> {
  readonly service: EngineServiceName;
  /** The configured target, as written by the administrator. */
  readonly target: string;
  readonly parsedTarget: ParsedGrpcTarget;
  /** Unary call with the configured deadline and metadata; rejects with {@link EngineCallError}. */
  call<M extends keyof T & string>(method: M, request: EngineRequest<T, M>, options?: EngineCallOptions): Promise<EngineResponse<T, M>>;
  /** Bidirectional streaming call with the configured metadata. */
  stream<M extends keyof St & string>(method: M, options?: EngineStreamOptions): EngineStream<StreamRequest<St, M>, StreamResponse<St, M>>;
  /** Current channel connectivity state (for diagnostics). */
  connectivityState(): grpc.connectivityState;
  /** Closes the channel; later calls fail. */
  close(): void;
}

export interface EngineClientOptions {
  /** How often `dns:///` (and single host name) targets are re-resolved while connected. Default 30 s. */
  dnsRefreshIntervalMs?: number;
  /** Least time between two resolutions the channel asks for. Default 1 s. */
  minResolutionIntervalMs?: number;
  /** Host name lookup (tests); default `dns.lookup(all)`. */
  lookup?: HostLookup;
  /** Extra grpc-js channel options (merged last). */
  channelOptions?: ChannelOptions;
}

function readTlsFile(kind: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw new GrpcConfigError([`cannot read the deployment's gRPC ${kind} file ${file}: ${e instanceof Error ? e.message : String(e)}`]);
  }
}

/**
 * Roots for TLS verification. Without a deployment CA: null, which lets Node use its default
 * store (bundled Mozilla roots plus NODE_EXTRA_CA_CERTS). With one: the same roots plus the CA,
 * because passing any CA to grpc-js replaces the default store.
 */
function rootCerts(tls: GrpcDeploymentTls | undefined): Buffer | null {
  if (!tls?.caFile) return null;
  const parts = [...rootCertificates];
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra) {
    try {
      parts.push(readFileSync(extra, 'utf8'));
    } catch {
      // Node itself only warns about an unreadable NODE_EXTRA_CA_CERTS.
    }
  }
  parts.push(readTlsFile('CA', tls.caFile).toString('utf8'));
  return Buffer.from(parts.join('\n'));
}

/** Builds the channel credentials for a TLS mode. */
export function buildChannelCredentials(config: Pick<GrpcClientConfig, 'tlsMode'>, tls?: GrpcDeploymentTls): grpc.ChannelCredentials {
  switch (config.tlsMode) {
    case 'PLAINTEXT':
      return grpc.credentials.createInsecure();
    case 'SYSTEM_TRUST':
      return grpc.credentials.createSsl(rootCerts(tls));
    case 'MTLS': {
      if (!tls?.certFile || !tls.keyFile) {
        throw new GrpcConfigError([
          'tlsMode MTLS requires a client certificate and key in the deployment settings, and none are configured',
        ]);
      }
      const cert = readTlsFile('client certificate', tls.certFile);
      const key = readTlsFile('client key', tls.keyFile);
      return grpc.credentials.createSsl(rootCerts(tls), key, cert);
    }
    default:
      throw new GrpcConfigError([`unknown tlsMode '${String(config.tlsMode)}'`]);
  }
}

/** Channel options for a configuration (round-robin, authority, message size, resolution). */
export function buildChannelOptions(config: GrpcClientConfig, options: EngineClientOptions = {}): ChannelOptions {
  const opts: ChannelOptions = {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    'grpc.service_config_disable_resolution': 1,
    [OPT_MIN_RESOLUTION_MS]: options.minResolutionIntervalMs ?? DEFAULT_MIN_RESOLUTION_MS,
    [OPT_DNS_REFRESH_MS]: options.dnsRefreshIntervalMs ?? DEFAULT_DNS_REFRESH_MS,
    // Each engine client owns its connections: closing one model's client never affects another.
    'grpc.use_local_subchannel_pool': 1,
    // An engine that comes back is used again within seconds, not after grpc-js's 120 s cap.
    'grpc.max_reconnect_backoff_ms': 10_000,
  };
  if (config.authority) {
    opts['grpc.default_authority'] = config.authority;
    if (config.tlsMode !== 'PLAINTEXT') {
      const hp = parseHostPort(config.authority, false);
      opts['grpc.ssl_target_name_override'] = typeof hp === 'string' ? config.authority : hp.host;
    }
  }
  if (config.maxInboundMessageBytes) opts['grpc.max_receive_message_length'] = config.maxInboundMessageBytes;
  return { ...opts, ...options.channelOptions };
}

function toMetadata(...sources: (Record<string, string> | null | undefined)[]): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const src of sources) {
    if (!src) continue;
    for (const [k, v] of Object.entries(src)) md.set(k, v);
  }
  return md;
}

function describeError(
  err: grpc.ServiceError,
  service: EngineServiceName,
  method: string,
  target: string,
  deadlineMs: number,
  maxInbound: number | null | undefined,
): EngineCallError {
  const what = `${service}.${method} on gRPC target '${target}'`;
  const details = err.details || err.message;
  let message: string;
  switch (err.code) {
    case grpc.status.DEADLINE_EXCEEDED:
      message = `${what} did not answer within its deadline of ${deadlineMs} ms (DEADLINE_EXCEEDED)`;
      break;
    case grpc.status.RESOURCE_EXHAUSTED:
      message = /larger than max/i.test(details)
        ? `${what} returned a response larger than maxInboundMessageBytes${maxInbound ? ` (${maxInbound} bytes)` : ''}: ${details}`
        : `${what} is overloaded (RESOURCE_EXHAUSTED): ${details}`;
      break;
    case grpc.status.UNAVAILABLE:
      message = `${what} is unavailable: ${details}`;
      break;
    default:
      message = `${what} failed with ${grpc.status[err.code] ?? err.code}: ${details}`;
  }
  return new EngineCallError(message, err.code, details, service, method, target);
}

/**
 * Turns a model's gRPC configuration into a channel to its engine. Throws {@link GrpcConfigError}
 * when the configuration is invalid (same checks as {@link validateGrpcClientConfig}) or TLS
 * material cannot be read. `tls` defaults to the deployment settings in the environment
 * ({@link grpcDeploymentTlsFromEnv}).
 */
export function createEngineClient<S extends EngineServiceName>(
  service: S,
  config: GrpcClientConfig,
  tls: GrpcDeploymentTls = grpcDeploymentTlsFromEnv(),
  options: EngineClientOptions = {},
): EngineClient<EngineServiceMethods[S], EngineStreamingMethods[S]> {
  const problems = validateGrpcClientConfig(config, tls);
  if (problems.length > 0) throw new GrpcConfigError(problems);
  registerEngineResolvers();
  const parsed = parseGrpcTarget(config.target);
  const definition = loadEngineServiceDefinition(service);
  const credentials = buildChannelCredentials(config, tls);
  const channelOptions = buildChannelOptions(config, options);
  const lookupId = options.lookup ? registerLookup(options.lookup) : null;
  if (lookupId !== null) channelOptions[OPT_LOOKUP_ID] = lookupId;
  const client = new grpc.Client(parsed.channelTarget, credentials, channelOptions);
  let closed = false;

  type Methods = EngineServiceMethods[S];
  return {
    service,
    target: config.target,
    parsedTarget: parsed,
    call<M extends keyof Methods & string>(
      method: M,
      request: EngineRequest<Methods, M>,
      callOptions: EngineCallOptions = {},
    ): Promise<EngineResponse<Methods, M>> {
      type Res = EngineResponse<Methods, M>;
      const def = definition[method];
      if (!def) return Promise.reject(new Error(`${service} has no method ${method}`));
      if (closed) return Promise.reject(new Error(`engine client for '${config.target}' is closed`));
      const deadlineMs = callOptions.deadlineMs ?? config.deadlineMs;
      const metadata = toMetadata(config.metadata, callOptions.metadata);
      return new Promise<Res>((resolve, reject) => {
        client.makeUnaryRequest<unknown, Res>(
          def.path,
          (value: unknown) => def.requestSerialize(value),
          (bytes: Buffer) => def.responseDeserialize(bytes) as Res,
          request,
          metadata,
          { deadline: Date.now() + deadlineMs },
          (err, value) => {
            if (err) reject(describeError(err, service, method, config.target, deadlineMs, config.maxInboundMessageBytes));
            else if (value === undefined) reject(new Error(`${service}.${method} on '${config.target}' returned no message`));
            else resolve(value);
          },
        );
      });
    },
    stream<M extends keyof EngineStreamingMethods[S] & string>(
      method: M,
      streamOptions: EngineStreamOptions = {},
    ): EngineStream<StreamRequest<EngineStreamingMethods[S], M>, StreamResponse<EngineStreamingMethods[S], M>> {
      type Req = StreamRequest<EngineStreamingMethods[S], M>;
      type Res = StreamResponse<EngineStreamingMethods[S], M>;
      const def = definition[method];
      if (!def) throw new Error(`${service} has no method ${method}`);
      if (closed) throw new Error(`engine client for '${config.target}' is closed`);
      // a stream lives as long as its session: no deadline unless the caller sets one
      const deadlineMs = streamOptions.deadlineMs ?? null;
      const duplex = client.makeBidiStreamRequest<Req, Res>(
        def.path,
        (value: Req) => def.requestSerialize(value),
        (bytes: Buffer) => def.responseDeserialize(bytes) as Res,
        toMetadata(config.metadata, streamOptions.metadata),
        deadlineMs === null ? {} : { deadline: Date.now() + deadlineMs },
      );
      return {
        send: (message: Req) => duplex.write(message),
        end: () => { duplex.end(); },
        cancel: () => { duplex.cancel(); },
        async *[Symbol.asyncIterator](): AsyncIterator<Res> {
          try {
            for await (const message of duplex) yield message as Res;
          } catch (err) {
            const e = err as grpc.ServiceError;
            throw typeof e.code === 'number'
              ? describeError(e, service, method, config.target, deadlineMs ?? 0, config.maxInboundMessageBytes)
              : err;
          }
        },
      };
    },
    connectivityState() {
      return client.getChannel().getConnectivityState(false);
    },
    close() {
      if (closed) return;
      closed = true;
      client.close();
      if (lookupId !== null) unregisterLookup(lookupId);
    },
  };
}
