export * from './config';
export * from './target';
export * from './types';
export {
  createEngineClient,
  buildChannelCredentials,
  buildChannelOptions,
  loadEngineServiceDefinition,
  EngineCallError,
  GrpcConfigError,
  ENGINE_PROTO_DIR,
  ENGINE_PROTO_PACKAGE,
  ENGINE_PROTO_LOADER_OPTIONS,
  type EngineClient,
  type EngineClientOptions,
  type EngineCallOptions,
  type EngineStream,
  type EngineStreamOptions,
  type EngineRequest,
  type EngineResponse,
} from './client';
export { DEFAULT_DNS_REFRESH_MS, DEFAULT_MIN_RESOLUTION_MS, type HostLookup } from './resolvers';
