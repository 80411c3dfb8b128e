import { z } from 'zod';

/**
 * The audio WebSocket's messages (docs/streaming.md is the contract; keep the two in step).
 * Parsed with zod at the edge, so a malformed message is a 4400 close that names the problem.
 */

const bcp47 = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export const startMessageSchema = z.strictObject({
  type: z.literal('start'),
  model: z.string().min(1).max(128).optional(),
  language: z.string().regex(bcp47, 'language must be a BCP-47 tag').default('en-US'),
  sampleRateHz: z.literal(16000, { error: 'sampleRateHz must be 16000' }).default(16000),
  encoding: z.literal('pcm_s16le', { error: 'encoding must be pcm_s16le' }).default('pcm_s16le'),
  channels: z.literal(1, { error: 'channels must be 1' }).default(1),
  interimResults: z.boolean().default(true),
  recording: z.boolean().default(false),
  itn: z.boolean().default(false),
  diarization: z.boolean().default(false),
  metadata: z.record(z.string().min(1).max(64), z.string().max(512))
    .refine((m) => Object.keys(m).length <= 20, 'metadata holds at most 20 entries')
    .optional(),
});
export type StartMessage = z.infer<typeof startMessageSchema>;

export const authMessageSchema = z.strictObject({
  type: z.literal('auth'),
  apiKey: z.string().min(1).optional(),
  accessToken: z.string().min(1).optional(),
}).refine((m) => (m.apiKey ? 1 : 0) + (m.accessToken ? 1 : 0) === 1, 'auth carries exactly one of apiKey or accessToken');

export const stopMessageSchema = z.strictObject({ type: z.literal('stop') });

/** Close codes of the audio WebSocket (docs/streaming.md, "Close codes"). */
export const CLOSE = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  TOO_BIG: 1009,
  INTERNAL: 1011,
  TRY_AGAIN_LATER: 1013,
  QUOTA: 4402,
  BAD_MESSAGE: 4400,
  UNAUTHENTICATED: 4401,
  FORBIDDEN: 4403,
  NOT_FOUND: 4404,
  TIMEOUT: 4408,
  GONE: 4410,
  AUDIO_RATE: 4413,
  LIMITED: 4429,
} as const;

/** error code (the platform vocabulary) → close code, for refusals raised as GraphQL-style errors */
export const CLOSE_FOR_CODE: Record<string, number> = {
  BAD_USER_INPUT: CLOSE.BAD_MESSAGE,
  UNAUTHENTICATED: CLOSE.UNAUTHENTICATED,
  FORBIDDEN: CLOSE.FORBIDDEN,
  NOT_FOUND: CLOSE.NOT_FOUND,
  GONE: CLOSE.GONE,
  RATE_LIMITED: CLOSE.LIMITED,
  QUOTA_EXCEEDED: CLOSE.QUOTA,
  UNAVAILABLE: CLOSE.TRY_AGAIN_LATER,
};

/** Audio is 16 kHz × 2 bytes: 32 bytes per millisecond. */
export const BYTES_PER_MS = 32;
export const MAX_FRAME_BYTES = 1024 * 1024;
export const HANDSHAKE_TIMEOUT_MS = 10_000;
export const AUDIO_IDLE_TIMEOUT_MS = 30_000;

export type ServerMessage =
  | { type: 'authenticated'; tenant: string; userId: string }
  | {
    type: 'started'; sessionId: string; requestedModelAlias: string; resolvedModelName: string; usedFallback: boolean; recording: boolean;
    limits: { maxBytesPerSecond: number; maxDurationSeconds: number }; warnings: string[];
  }
  | { type: 'partial'; sessionId: string; transcript: string; startSeconds: number }
  | { type: 'final'; sessionId: string; segment: FinalSegment }
  | { type: 'error'; code: string; message: string; [extra: string]: unknown }
  | {
    type: 'closed'; sessionId: string; state: string; durationMilliseconds: number; segmentCount: number; wordsCount: number;
    failureReason: string | null;
  };

export interface FinalSegment {
  id: string;
  segmentIndex: number;
  transcript: string;
  confidence: number | null;
  words: { word: string; startSeconds: number; endSeconds: number; confidence: number | null; speakerTag: number | null }[] | null;
  startSeconds: number;
  endSeconds: number;
  createdAt: string;
}

/** Why a session could not start, or had to end: what the client is told and how the socket closes. */
export class StreamingRefusal extends Error {
  constructor(readonly closeCode: number, readonly code: string, message: string, readonly extras: Record<string, unknown> = {}) {
    super(message);
  }
}
