import { and, eq, inArray, isNull, lt, notInArray, sql } from 'drizzle-orm';
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
  /**
   * `bulkDb`: the heartbeat of hundreds of sessions is one longer statement; on its own pool it does
   * not hold up the segment writes pipelined on `db` behind it.
   */
  constructor(private readonly db: Database, private readonly bulkDb: Database = db) {}

  async create(s: NewSession): Promise<SessionRow> {
    const [row] = await this.db.insert(streamingSessions).values({ ...s, state: 'CREATED' }).returning();
    if (!row) throw new Error('session not created');
    return row;
  }

  async activate(id: string, model: { resolvedModelName: string; usedFallback: boolean }): Promise<void> {
    await this.db.update(streamingSessions).set({ state: 'ACTIVE', ...model, heartbeatAt: sql`now()` })
      .where(and(eq(streamingSessions.id, id), eq(streamingSessions.state, 'CREATED')));
  }

  /** Heartbeat of every session of this process with the audio processed so far: what an edge crash would leave counted. */
  async progressMany(items: { id: string; durationMs: number; recordingBytes: number }[]): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const rows = await this.bulkDb.execute<{ id: string }>(sql`
      update ${streamingSessions} set duration_ms = v.duration_ms, recording_bytes = v.recording_bytes, heartbeat_at = now()
      from (select unnest(${sql.param(items.map((i) => i.id))}::uuid[]) as id,
                   unnest(${sql.param(items.map((i) => i.durationMs))}::bigint[]) as duration_ms,
                   unnest(${sql.param(items.map((i) => i.recordingBytes))}::bigint[]) as recording_bytes) as v
      where ${streamingSessions.id} = v.id and ${streamingSessions.state} in ('CREATED', 'ACTIVE')
      returning ${streamingSessions.id} as id`);
    // the sessions whose rows are no longer live were ended elsewhere (swept after a stall)
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Inserts the segment and moves the session's counts in one statement (one round trip on the
   * pipelined pool, atomic like a transaction), so the two never disagree.
   */
  async addSegment(sessionId: string, seg: NewSegment): Promise<{ id: string; createdAt: Date }> {
    const words = seg.words ? JSON.stringify(seg.words) : null;
    const rows = await this.db.execute<{ id: string; created_at: string | Date }>(sql`
      with inserted as (
        insert into ${sessionSegments} (session_id, segment_index, transcript, confidence, words, start_seconds, end_seconds)
        values (${sessionId}, ${seg.segmentIndex}, ${seg.transcript}, ${seg.confidence}, ${words}::jsonb, ${seg.startSeconds}, ${seg.endSeconds})
        returning id, created_at
      ), counted as (
        update ${streamingSessions} set segment_count = segment_count + 1, words_count = words_count + ${seg.words?.length ?? 0}
        where id = ${sessionId}
      )
      select id, created_at from inserted`);
    const row = rows[0];
    if (!row) throw new Error('segment not saved');
    return { id: row.id, createdAt: new Date(row.created_at) };
  }

  /** The end of a live session; false when it had already ended (e.g. failed by the sweeper). */
  async finish(id: string, end: { state: SessionState; failureReason: string | null; durationMs: number; recordingBytes: number }): Promise<SessionRow | null> {
    const [row] = await this.db.update(streamingSessions).set({ ...end, endTime: new Date(), heartbeatAt: new Date() })
      .where(and(eq(streamingSessions.id, id), inArray(streamingSessions.state, LIVE))).returning();
    return row ?? null;
  }

  /** The session's minutes are in the usage ledger. */
  async markSettled(id: string): Promise<void> {
    await this.db.update(streamingSessions).set({ usageSettledAt: sql`now()` }).where(eq(streamingSessions.id, id));
  }

  /** Ended sessions whose minutes never reached the ledger (it failed when they ended), oldest first. */
  async unsettled(endedBeforeMs: number, limit = 100): Promise<SessionRow[]> {
    return this.db.select().from(streamingSessions).where(and(
      isNull(streamingSessions.usageSettledAt), notInArray(streamingSessions.state, LIVE),
      lt(streamingSessions.endTime, sql`now() - make_interval(secs => ${endedBeforeMs / 1000})`),
    )).orderBy(streamingSessions.endTime).limit(limit);
  }

  /** Live sessions whose owner stopped heart-beating (crashed edge): FAILED, returned for usage accounting. */
  async failStale(olderThanMs: number, reason: string): Promise<SessionRow[]> {
    // measured on the database's clock, the one heartbeats are written with: an edge whose clock
    // runs ahead must not take every live session for dead
    return this.db.update(streamingSessions).set({ state: 'FAILED', failureReason: reason, endTime: sql`${streamingSessions.heartbeatAt}` })
      .where(and(inArray(streamingSessions.state, LIVE), lt(streamingSessions.heartbeatAt, sql`now() - make_interval(secs => ${olderThanMs / 1000})`))).returning();
  }
}
