import type { ModelRow } from '../db/schema';
import { AsrModelStatus, GrpcTlsMode, SentverModelStatus, SpeakerEmbeddingModelStatus } from '../shared/graphql-types';
import type { ModelConfig } from './models.service';
import type { AsrModel, AsrModelInput, SentverModel, SentverModelInput, SpeakerEmbeddingGrpcClientConfigInput, SpeakerEmbeddingModel, UpdateAsrModelInput, UpdateSentverModelInput } from './model.types';

const iso = (d: Date | null) => (d ? d.toISOString() : null);
type Counts = { enrollments: number; verifications: number; activeVoicePrints: number; defaultSpeakers: number };
const ZERO: Counts = { enrollments: 0, verifications: 0, activeVoicePrints: 0, defaultSpeakers: 0 };
const plain = <T>(v: T | null | undefined): T | null => (v ? ({ ...v } as T) : null);

export function toSentverModel(m: ModelRow, counts: Counts = ZERO): SentverModel {
  return {
    name: m.name, displayName: m.displayName, description: m.description,
    status: m.status as SentverModelStatus, statusMessage: m.statusMessage,
    deprecatedAt: iso(m.deprecatedAt), inactiveAt: iso(m.inactiveAt),
    supportedLocales: m.supportedLocales ?? [], maxExpectedTextLength: m.maxExpectedTextLength,
    grpcTarget: m.grpcTarget, grpcTlsMode: m.grpcTlsMode as GrpcTlsMode, grpcAuthority: m.grpcAuthority,
    grpcDeadlineMs: m.grpcDeadlineMs, grpcMaxInboundMessageBytes: m.grpcMaxInboundMessageBytes, grpcMetadata: m.grpcMetadata,
    thresholdDefaults: plain(m.thresholdDefaults), createdAt: m.createdAt.toISOString(), updatedAt: m.updatedAt.toISOString(),
    retainedEnrollmentCount: counts.enrollments, retainedVerificationCount: counts.verifications,
  };
}

export function toEmbeddingModel(m: ModelRow, counts: Counts = ZERO): SpeakerEmbeddingModel {
  return {
    name: m.name, displayName: m.displayName, description: m.description,
    status: m.status as SpeakerEmbeddingModelStatus, statusMessage: m.statusMessage,
    deprecatedAt: iso(m.deprecatedAt), inactiveAt: iso(m.inactiveAt), supportedLocales: m.supportedLocales,
    grpc: {
      target: m.grpcTarget, tlsMode: m.grpcTlsMode as GrpcTlsMode, authority: m.grpcAuthority, deadlineMs: m.grpcDeadlineMs,
      maxInboundMessageBytes: m.grpcMaxInboundMessageBytes, metadata: m.grpcMetadata,
    },
    createdAt: m.createdAt.toISOString(), updatedAt: m.updatedAt.toISOString(), thresholdDefaults: plain(m.thresholdDefaults),
    activeVoicePrintCount: counts.activeVoicePrints, defaultVoicePrintSpeakerCount: counts.defaultSpeakers,
  };
}

export function toAsrModel(m: ModelRow): AsrModel {
  return {
    name: m.name, displayName: m.displayName, description: m.description,
    status: m.status as AsrModelStatus, statusMessage: m.statusMessage,
    deprecatedAt: iso(m.deprecatedAt), inactiveAt: iso(m.inactiveAt), supportedLocales: m.supportedLocales ?? [],
    grpcTarget: m.grpcTarget, grpcTlsMode: m.grpcTlsMode as GrpcTlsMode, grpcAuthority: m.grpcAuthority,
    grpcDeadlineMs: m.grpcDeadlineMs, grpcMaxInboundMessageBytes: m.grpcMaxInboundMessageBytes, grpcMetadata: m.grpcMetadata,
    createdAt: m.createdAt.toISOString(), updatedAt: m.updatedAt.toISOString(),
  };
}

export const DEFAULT_DEADLINE_MS = 5_000;

/** Omitted nullable fields become null: PUT replaces the whole configuration. */
export function sentverConfig(i: SentverModelInput | UpdateSentverModelInput): ModelConfig {
  return {
    displayName: i.displayName, description: i.description ?? null, supportedLocales: i.supportedLocales,
    maxExpectedTextLength: i.maxExpectedTextLength ?? null, grpcTarget: i.grpcTarget, grpcTlsMode: i.grpcTlsMode,
    grpcAuthority: i.grpcAuthority ?? null, grpcDeadlineMs: i.grpcDeadlineMs ?? DEFAULT_DEADLINE_MS,
    grpcMaxInboundMessageBytes: i.grpcMaxInboundMessageBytes ?? null, grpcMetadata: plain(i.grpcMetadata),
    thresholdDefaults: plain(i.thresholdDefaults),
  };
}

export function embeddingConfig(i: { displayName: string; description?: string | null; supportedLocales?: string[] | null; grpc: SpeakerEmbeddingGrpcClientConfigInput; thresholdDefaults?: object | null }): ModelConfig {
  return {
    // optional for embeddings: an empty list says the same as none
    displayName: i.displayName, description: i.description ?? null, supportedLocales: i.supportedLocales?.length ? i.supportedLocales : null,
    maxExpectedTextLength: null, grpcTarget: i.grpc.target, grpcTlsMode: i.grpc.tlsMode, grpcAuthority: i.grpc.authority ?? null,
    grpcDeadlineMs: i.grpc.deadlineMs, grpcMaxInboundMessageBytes: i.grpc.maxInboundMessageBytes ?? null,
    grpcMetadata: plain(i.grpc.metadata), thresholdDefaults: plain(i.thresholdDefaults) as ModelConfig['thresholdDefaults'],
  };
}

/** The sentver request's flat gRPC fields without verification settings; PUT clears omitted nullable fields. */
export function asrConfig(i: AsrModelInput | UpdateAsrModelInput): ModelConfig {
  return {
    displayName: i.displayName, description: i.description ?? null, supportedLocales: i.supportedLocales,
    maxExpectedTextLength: null, grpcTarget: i.grpcTarget, grpcTlsMode: i.grpcTlsMode,
    grpcAuthority: i.grpcAuthority ?? null, grpcDeadlineMs: i.grpcDeadlineMs ?? DEFAULT_DEADLINE_MS,
    grpcMaxInboundMessageBytes: i.grpcMaxInboundMessageBytes ?? null, grpcMetadata: plain(i.grpcMetadata), thresholdDefaults: null,
  };
}
