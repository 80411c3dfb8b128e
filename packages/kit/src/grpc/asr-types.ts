/**
 * TypeScript shapes of schema/proto/asr.proto as @grpc/proto-loader presents them with the kit's
 * loader options (camelCase fields, enums as strings, defaults filled in, oneofs named by a
 * virtual field, bytes as Buffer).
 */

export type AsrEncoding = 'ENCODING_UNSPECIFIED' | 'PCM_S16LE';

export interface AsrAudioFormat {
  encoding: AsrEncoding;
  /** Hz; 16000. */
  sampleRateHz: number;
  /** 0 or 1. */
  channels?: number;
}

export interface AsrRecognitionConfig {
  format: AsrAudioFormat;
  /** BCP-47, e.g. en-US; empty = default. */
  language?: string;
  /** Empty = default model. */
  model?: string;
  interimResults?: boolean;
  requestId?: string;
}

export interface AsrStreamingRecognizeRequest {
  config?: AsrRecognitionConfig | null;
  audio?: Uint8Array;
  /** Which oneof member is set (present on received messages). */
  request?: 'config' | 'audio';
}

export interface AsrWord {
  word: string;
  /** Seconds from the start of the audio. */
  startSeconds: number;
  endSeconds: number;
  /** 0..1. */
  confidence: number;
}

export interface AsrSegment {
  index: number;
  transcript: string;
  words: AsrWord[];
  startSeconds: number;
  endSeconds: number;
  confidence: number;
}

export interface AsrPartialResult {
  transcript: string;
  startSeconds: number;
}

export interface AsrStreamingRecognizeResponse {
  partial?: AsrPartialResult | null;
  segment?: AsrSegment | null;
  audioProcessedSeconds: number;
  result?: 'partial' | 'segment';
}

export interface AsrRecognizeRequest {
  config: AsrRecognitionConfig;
  audio: Uint8Array;
}

export interface AsrRecognizeResponse {
  segments: AsrSegment[];
  transcript: string;
  audioDurationSeconds: number;
  realTimeFactor: number;
  modelName: string;
  modelVersion: string;
}

export interface AsrModelInfo {
  name: string;
  version: string;
  description: string;
  supportedLanguages: string[];
  supportedSampleRatesHz: number[];
  supportedEncodings: AsrEncoding[];
  maxConcurrentStreams: number;
  supportsInterimResults: boolean;
  supportsWordTimings: boolean;
}

export interface AsrHealthResponse {
  status: 'STATUS_UNSPECIFIED' | 'SERVING' | 'NOT_SERVING';
  message: string;
}

export type AsrModelInfoRequest = Record<string, never>;
export type AsrHealthRequest = Record<string, never>;
