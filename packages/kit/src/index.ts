export * from './blobs';
export * from './config';
export * from './db';
export * from './edge-epoch';
export * from './events';
export * from './errors';
export * from './identity';
export * from './ids';
export * from './logger';
export * from './redis';
export * from './scopes';
export * from './secrets';
export * from './subgraph';
export * from './limits';
// gRPC configuration rules only: the client (and grpc-js with it) is `@voxgate/kit/grpc`, loaded
// where an engine is actually dialled
export * from './grpc/config';
export * from './grpc/target';
export * from './grpc/types';
