import type {
  AsrHealthRequest, AsrHealthResponse, AsrModelInfo, AsrModelInfoRequest, AsrRecognizeRequest, AsrRecognizeResponse,
  AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse,
} from './asr-types';

export * from './asr-types';

/**
 * TypeScript shapes of the engine contracts in schema/proto, as @grpc/proto-loader presents them
 * with the options used by the client factory (camelCase fields, enums as strings, defaults
 * filled in on responses, bytes as Buffer).
 */

export type AudioEncoding = 'ENCODING_UNSPECIFIED' | 'PCM_S16LE' | 'PCM_F32LE' | 'WAV' | 'OGG_OPUS' | 'FLAC';

export interface AudioFormat {
  encoding: AudioEncoding;
  /** Hz, e.g. 16000. */
  sampleRateHz: number;
  /** Interleaved channels; 0 is treated as 1. */
  channels?: number;
}

export type EngineHealthStatus = 'STATUS_UNSPECIFIED' | 'SERVING' | 'NOT_SERVING';

export interface HealthRequest {
  [key: string]: never;
}

export interface HealthResponse {
  status: EngineHealthStatus;
  message: string;
}

// --- voxgate.engines.v1.SentenceVerification -------------------------------------------------

export interface VerifyRequest {
  audio: Uint8Array;
  format: AudioFormat;
  expectedText: string;
  /** BCP-47. */
  locale: string;
  requestId?: string;
}

export interface VerifyResponse {
  /** 0..1. */
  score: number;
  recognizedText: string;
  speechDurationMs: number;
  audioDurationMs: number;
  recognitionConfidence: number;
  modelName: string;
  modelVersion: string;
  warnings: string[];
}

export interface ModelInfoRequest {
  [key: string]: never;
}

export interface SentenceVerificationModelInfo {
  name: string;
  version: string;
  description: string;
  supportedLocales: string[];
  supportedSampleRatesHz: number[];
  supportedEncodings: AudioEncoding[];
  maxExpectedTextLength: number;
  maxAudioDurationMs: number;
}

// --- voxgate.engines.v1.SpeakerEmbedding ------------------------------------------------------

export interface EmbedRequest {
  audio: Uint8Array;
  format: AudioFormat;
  /** BCP-47, optional. */
  locale?: string;
  requestId?: string;
}

export interface EmbedResponse {
  embedding: number[];
  normalized: boolean;
  /** 0..1. */
  quality: number;
  speechDurationMs: number;
  audioDurationMs: number;
  modelName: string;
  modelVersion: string;
  warnings: string[];
}

export interface SpeakerEmbeddingModelInfo {
  name: string;
  version: string;
  description: string;
  dimension: number;
  similarityMetric: string;
  supportedSampleRatesHz: number[];
  supportedEncodings: AudioEncoding[];
  supportedLocales: string[];
  minSpeechDurationMs: number;
  maxAudioDurationMs: number;
}

// --- method maps -------------------------------------------------------------------------------

export interface EngineMethod<Req, Res> {
  request: Req;
  response: Res;
}

export interface SentenceVerificationMethods {
  Verify: EngineMethod<VerifyRequest, VerifyResponse>;
  GetModelInfo: EngineMethod<ModelInfoRequest, SentenceVerificationModelInfo>;
  Health: EngineMethod<HealthRequest, HealthResponse>;
}

export interface SpeakerEmbeddingMethods {
  Embed: EngineMethod<EmbedRequest, EmbedResponse>;
  GetModelInfo: EngineMethod<ModelInfoRequest, SpeakerEmbeddingModelInfo>;
  Health: EngineMethod<HealthRequest, HealthResponse>;
}

export interface SpeechRecognitionMethods {
  Recognize: EngineMethod<AsrRecognizeRequest, AsrRecognizeResponse>;
  GetModelInfo: EngineMethod<AsrModelInfoRequest, AsrModelInfo>;
  Health: EngineMethod<AsrHealthRequest, AsrHealthResponse>;
}

export interface EngineServiceMethods {
  SentenceVerification: SentenceVerificationMethods;
  SpeakerEmbedding: SpeakerEmbeddingMethods;
  SpeechRecognition: SpeechRecognitionMethods;
}

/** Bidirectional streaming methods, per service (services without any map to an empty set). */
export interface EngineStreamingMethods {
  SentenceVerification: Record<never, never>;
  SpeakerEmbedding: Record<never, never>;
  SpeechRecognition: { StreamingRecognize: EngineMethod<AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse> };
}

export type EngineServiceName = keyof EngineServiceMethods;
