import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Database } from '@voxgate/kit';
import { sessionSegments, streamingSessions, type SegmentWord, type SessionRow, type SessionState } from '../db/schema';

export interface NewSession {
  id: string;
  tenantId: string;
  userId: string;
  requestedModelAlias: string;
  resolvedModelName: string;
  usedFallback: boolean;
  language: string;
  recordingRequested: boolean;
  recordingEnabled: boolean;
  itnRequested: boolean;
  diarizationRequested: boolean;
  interimResults: boolean;
  clientAddress: string;
  userAgent: string | null;
  metadata: Record<string, string> | null;
  ownerInstance: string;
}

export interface NewSegment {
  segmentIndex: number;
  transcript: string;
  confidence: number | null;
  words: SegmentWord[] | null;
  startSeconds: number;
  endSeconds: number;
}

const LIVE: SessionState[] = ['CREATED', 'ACTIVE'];

/** The writes a running session makes to its record; every one is a single statement or a short transaction. */
export class SessionRecords {
  constructor(private readonly db: Database, private readonly txDb: Database) {}

  async create(s: NewSession): Promise<SessionRow> {
    const [row] = await this.db.insert(streamingSessions).values({ ...s, state: 'CREATED' }).returning();
    if (!row) throw new Error('session not created');
    return row;
  }

  async activate(id: string, model: { resolvedModelName: string; usedFallback: boolean }): Promise<void> {
    await this.db.update(streamingSessions).set({ state: 'ACTIVE', ...model, heartbeatAt: new Date() })
      .where(and(eq(streamingSessions.id, id), eq(streamingSessions.state, 'CREATED')));
  }

  /** Heartbeat with the audio processed so far: what an edge crash would leave counted. */
  async progress(id: string, durationMs: number, recordingBytes: number): Promise<void> {
    await this.db.update(streamingSessions).set({ durationMs, recordingBytes, heartbeatAt: new Date() })
      .where(and(eq(streamingSessions.id, id), inArray(streamingSessions.state, LIVE)));
  }

  /** Inserts the segment and moves the session's counts in one transaction, so the two never disagree. */
  async addSegment(sessionId: string, seg: NewSegment): Promise<{ id: string; createdAt: Date }> {
    return this.txDb.transaction(async (tx) => {
      const [row] = await tx.insert(sessionSegments).values({ sessionId, ...seg }).returning({ id: sessionSegments.id, createdAt: sessionSegments.createdAt });
      await tx.update(streamingSessions).set({
        segmentCount: sql`${streamingSessions.segmentCount} + 1`,
        wordsCount: sql`${streamingSessions.wordsCount} + ${seg.words?.length ?? 0}`,
        heartbeatAt: new Date(),
      }).where(eq(streamingSessions.id, sessionId));
      if (!row) throw new Error('segment not saved');
      return row;
    });
  }

  /** The end of a live session; false when it had already ended (e.g. failed by the sweeper). */
  async finish(id: string, end: { state: SessionState; failureReason: string | null; durationMs: number; recordingBytes: number }): Promise<SessionRow | null> {
    const [row] = await this.db.update(streamingSessions).set({ ...end, endTime: new Date(), heartbeatAt: new Date() })
      .where(and(eq(streamingSessions.id, id), inArray(streamingSessions.state, LIVE))).returning();
    return row ?? null;
  }

  /** Live sessions whose owner stopped heart-beating (crashed edge): FAILED, returned for usage accounting. */
  async failStale(olderThan: Date, reason: string): Promise<SessionRow[]> {
    return this.db.update(streamingSessions).set({ state: 'FAILED', failureReason: reason, endTime: sql`${streamingSessions.heartbeatAt}` })
      .where(and(inArray(streamingSessions.state, LIVE), lt(streamingSessions.heartbeatAt, olderThan))).returning();
  }
}
