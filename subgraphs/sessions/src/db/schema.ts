import { sql } from 'drizzle-orm';
import { boolean, bigint, doublePrecision, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** The sessions subgraph's own Postgres schema. */
export const sessionsSchema = pgSchema('sessions');

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export type SessionState = 'CREATED' | 'ACTIVE' | 'FINISHED' | 'CANCELLED' | 'FAILED';

/** Streaming recognition sessions: one row per audio WebSocket session, kept after soft delete for audit and quota. */
export const streamingSessions = sessionsSchema.table(
  'streaming_sessions',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    userId: uuid('user_id').notNull(),
    state: text('state').$type<SessionState>().notNull(),
    requestedModelAlias: text('requested_model_alias').notNull(),
    resolvedModelName: text('resolved_model_name').notNull(),
    usedFallback: boolean('used_fallback').notNull().default(false),
    language: text('language').notNull(),
    startTime: ts('start_time').notNull().defaultNow(),
    endTime: ts('end_time'),
    /** processed audio, in milliseconds (bytes received / 32) */
    durationMs: bigint('duration_ms', { mode: 'number' }).notNull().default(0),
    wordsCount: integer('words_count').notNull().default(0),
    segmentCount: integer('segment_count').notNull().default(0),
    recordingRequested: boolean('recording_requested').notNull().default(false),
    /** the tenant allowed it and the client asked: a recording blob exists (or existed) */
    recordingEnabled: boolean('recording_enabled').notNull().default(false),
    recordingBytes: bigint('recording_bytes', { mode: 'number' }).notNull().default(0),
    recordingPurgedAt: ts('recording_purged_at'),
    contentPurgedAt: ts('content_purged_at'),
    itnRequested: boolean('itn_requested').notNull().default(false),
    diarizationRequested: boolean('diarization_requested').notNull().default(false),
    interimResults: boolean('interim_results').notNull().default(true),
    clientAddress: text('client_address').notNull(),
    userAgent: text('user_agent'),
    failureReason: text('failure_reason'),
    metadata: jsonb('metadata').$type<Record<string, string>>(),
    /** the edge process running the session; a restarted edge fails the sessions it left behind */
    ownerInstance: text('owner_instance'),
    /** last time the owner showed the session alive; stale ACTIVE sessions are failed by the sweeper */
    heartbeatAt: ts('heartbeat_at').notNull().defaultNow(),
    deletedAt: ts('deleted_at'),
    /** the session's minutes were committed in the usage ledger; until then the sweeper retries */
    usageSettledAt: ts('usage_settled_at'),
  },
  (t) => [
    index('streaming_sessions_user_idx').on(t.tenantId, t.userId, t.startTime),
    index('streaming_sessions_tenant_idx').on(t.tenantId, t.startTime),
    index('streaming_sessions_live_idx').on(t.state, t.heartbeatAt).where(sql`state in ('CREATED', 'ACTIVE')`),
    index('streaming_sessions_unsettled_idx').on(t.endTime).where(sql`usage_settled_at IS NULL AND state NOT IN ('CREATED', 'ACTIVE')`),
  ],
);

export interface SegmentWord {
  word: string;
  startSeconds: number;
  endSeconds: number;
  confidence: number | null;
  speakerTag: number | null;
}

/** Finalized segments, in order; removed by a content purge. */
export const sessionSegments = sessionsSchema.table(
  'session_segments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    sessionId: uuid('session_id').notNull().references(() => streamingSessions.id, { onDelete: 'cascade' }),
    segmentIndex: integer('segment_index').notNull(),
    transcript: text('transcript').notNull(),
    confidence: doublePrecision('confidence'),
    words: jsonb('words').$type<SegmentWord[]>(),
    startSeconds: doublePrecision('start_seconds').notNull(),
    endSeconds: doublePrecision('end_seconds').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('session_segments_index_uq').on(t.sessionId, t.segmentIndex)],
);

export type SessionRow = typeof streamingSessions.$inferSelect;
export type SegmentRow = typeof sessionSegments.$inferSelect;
