import { randomUUID } from 'node:crypto';
import { ConcurrencyLimiter, StreamingSessionEvents, type BlobStore, type Database, type FixedWindowRateLimiter, type Logger, type Redis } from '@voxgate/kit';
import { UsageLedger } from '@voxgate/billing';
import { EngineChannels, heartbeatMs, LiveSessions, SessionRecords, type StreamingDeps, type TenantSettingsSource } from '@voxgate/sessions/streaming';
import type { SpeakerModelsDeps } from '@voxgate/speaker-models';

/** The streaming runner's dependencies from the platform's shared ones. */
export function streamingDeps(d: SpeakerModelsDeps & {
  db: Database; txDb: Database; redis: Redis; log: Logger; limiter: FixedWindowRateLimiter | null; blobs: BlobStore; tenants: TenantSettingsSource;
  orphanAfterMs: number;
}): StreamingDeps {
  const records = new SessionRecords(d.db, d.txDb);
  return {
    db: d.db, txDb: d.txDb, redis: d.redis, log: d.log, limiter: d.limiter, blobs: d.blobs, tenants: d.tenants,
    // RATE_LIMITS=off switches off every limit, concurrency included
    concurrency: d.limiter ? new ConcurrencyLimiter(d.redis, { prefix: 'vxg:cc:' }) : null,
    events: new StreamingSessionEvents(d.redis),
    ledger: new UsageLedger({ db: d.db, txDb: d.txDb, redis: d.redis }),
    records,
    live: new LiveSessions(records, d.tenants, d.log, heartbeatMs(d.orphanAfterMs)),
    orphanAfterMs: d.orphanAfterMs,
    engines: new EngineChannels(),
    models: d,
    instanceId: randomUUID(),
  };
}
