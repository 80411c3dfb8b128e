import type { GrpcClientConfig } from '@voxgate/kit';
import type { ModelRow } from '../db/schema';

/**
 * A model's stored gRPC settings as the kit's client factory takes them
 * (`createEngineClient(service, engineClientConfig(model))` from '@voxgate/kit/grpc'), so the
 * connection test and the sessions that stream to the model dial it identically.
 */
export function engineClientConfig(model: ModelRow): GrpcClientConfig {
  return {
    target: model.grpcTarget, tlsMode: model.grpcTlsMode, authority: model.grpcAuthority, deadlineMs: model.grpcDeadlineMs,
    maxInboundMessageBytes: model.grpcMaxInboundMessageBytes, metadata: model.grpcMetadata ? { ...model.grpcMetadata } : null,
  };
}
