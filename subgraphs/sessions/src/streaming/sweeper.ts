import type { ConcurrencyLimiter, Logger } from '@voxgate/kit';
import type { UsageLedger } from '@voxgate/billing';
import type { SessionRecords } from './records';
import { minutesOf, tenantSlotKey, usageSourceKey, userSlotKey } from './admission';

/** A live session whose edge stopped heart-beating for this long is orphaned (SESSION_ORPHAN_SECONDS). */
export const DEFAULT_ORPHAN_AFTER_MS = 30_000;

/**
 * Ends the sessions of edges that crashed or were killed: FAILED, with their last recorded audio
 * duration counted against the monthly minutes (so duration counts even when the connection
 * fails with its edge) and their concurrency slots freed. Every edge runs it; the conditional
 * update lets only one win per session.
 */
export class OrphanSweeper {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly records: SessionRecords,
    private readonly ledger: UsageLedger,
    private readonly log: Logger,
    private readonly orphanAfterMs = DEFAULT_ORPHAN_AFTER_MS,
    private readonly concurrency: ConcurrencyLimiter | null = null,
  ) {}

  async sweep(): Promise<number> {
    const failed = await this.records.failStale(this.orphanAfterMs, 'the edge running the session stopped responding');
    for (const s of failed) {
      try {
        // the dead edge never released its slots; they would otherwise count until their leases expire
        await this.concurrency?.releaseHolder(userSlotKey(s.userId), s.id);
        await this.concurrency?.releaseHolder(tenantSlotKey(s.tenantId), s.id);
        await this.ledger.commitInstalments({ tenantId: s.tenantId, sourceKey: usageSourceKey(s.id), amount: minutesOf(s.durationMs) });
      } catch (e) {
        this.log.warn({ err: e, sessionId: s.id }, 'could not settle an orphaned session');
      }
    }
    if (failed.length > 0) this.log.warn({ sessions: failed.map((s) => s.id) }, 'failed orphaned streaming sessions');
    return failed.length;
  }

  start(): void {
    const run = () => { void this.sweep().catch((e: unknown) => this.log.warn({ err: e }, 'session sweep failed')); };
    run();
    this.timer = setInterval(run, this.orphanAfterMs / 2);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
