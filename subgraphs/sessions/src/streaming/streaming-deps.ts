import type { BlobStore, ConcurrencyLimiter, Database, FixedWindowRateLimiter, Logger, Redis, StreamingSessionEvents } from '@voxgate/kit';
import type { UsageLedger } from '@voxgate/billing';
import type { SpeakerModelsDeps } from '@voxgate/speaker-models';
import type { EngineChannels } from './engines';
import type { LiveSessions } from './live-sessions';
import type { SessionRecords } from './records';

/** The tenant settings a session start needs (tenancy's TenantStreamingPolicy, injected). */
export interface TenantSettingsSource {
  settings(tenantId: string): Promise<{ enabled: boolean; maxConcurrentSessions: number; recordingEnabled: boolean } | null>;
  /** which of these tenants are disabled now */
  disabledAmong(tenantIds: string[]): Promise<string[]>;
}

/** What running streaming sessions needs, wired by the edge. */
export interface StreamingDeps {
  db: Database;
  txDb: Database;
  redis: Redis;
  log: Logger;
  /** null when RATE_LIMITS=off: starts and concurrency are then not limited */
  limiter: FixedWindowRateLimiter | null;
  concurrency: ConcurrencyLimiter | null;
  blobs: BlobStore;
  events: StreamingSessionEvents;
  ledger: UsageLedger;
  tenants: TenantSettingsSource;
  records: SessionRecords;
  engines: EngineChannels;
  /** the sessions this process runs, heart-beaten together */
  live: LiveSessions;
  /** resolution of ASR aliases (the speaker-models domain's machinery, run in-process) */
  models: SpeakerModelsDeps;
  /** how long a live session may go without a heartbeat before any edge fails it (SESSION_ORPHAN_SECONDS) */
  orphanAfterMs: number;
  /** this edge process, recorded on the sessions it runs */
  instanceId: string;
}
