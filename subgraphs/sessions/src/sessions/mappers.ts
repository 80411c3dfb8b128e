import type { SegmentRow, SessionRow } from '../db/schema';
import type { SessionSegment, StreamingSession, StreamingSessionState } from './session.types';

export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toSession(r: SessionRow): StreamingSession {
  return {
    sessionId: r.id,
    state: r.state as StreamingSessionState,
    requestedModelAlias: r.requestedModelAlias,
    resolvedModelName: r.resolvedModelName,
    usedFallback: r.usedFallback,
    startTime: r.startTime.toISOString(),
    endTime: iso(r.endTime),
    durationMilliseconds: r.durationMs,
    wordsCount: r.wordsCount,
    segmentCount: r.segmentCount,
    recordingRequested: r.recordingRequested,
    itnRequested: r.itnRequested,
    diarizationRequested: r.diarizationRequested,
    recordingPurged: r.recordingPurgedAt !== null,
    recordingPurgedAt: iso(r.recordingPurgedAt),
    clientAddress: r.clientAddress,
    userAgent: r.userAgent,
    failureReason: r.failureReason,
    metadata: r.metadata ?? null,
    userId: r.userId,
    language: r.language,
    recordingAvailable: r.recordingEnabled && r.recordingPurgedAt === null,
  };
}

export function toSegment(r: SegmentRow): SessionSegment {
  return {
    id: r.id,
    segmentIndex: r.segmentIndex,
    transcript: r.transcript,
    confidence: r.confidence,
    words: r.words ?? null,
    startSeconds: r.startSeconds,
    endSeconds: r.endSeconds,
    createdAt: r.createdAt.toISOString(),
  };
}

/** Where a session's recording lives in the blob store (never shown to clients). */
export const recordingKey = (tenantId: string, sessionId: string): string => `sessions/${tenantId}/${sessionId}.pcm`;
