import { GraphQLError } from 'graphql';
import type { ConcurrencyLimiter, Logger } from '@voxgate/kit';
import type { UsageLedger } from '@voxgate/billing';
import type { SessionRecords } from './records';
import { minutesOf, tenantSlotKey, usageSourceKey, userSlotKey } from './admission';

/** A live session whose edge stopped heart-beating for this long is orphaned (SESSION_ORPHAN_SECONDS). */
export const DEFAULT_ORPHAN_AFTER_MS = 30_000;

/**
 * Ends the sessions of edges that crashed or were killed: FAILED, with their last recorded audio
 * duration counted against the monthly minutes (so duration counts even when the connection
 * fails with its edge) and their concurrency slots freed. It also settles ended sessions whose
 * minutes never reached the ledger. Every edge runs it; the conditional update lets only one edge
 * fail a session, and committing instalments is idempotent.
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
      } catch (e) {
        this.log.warn({ err: e, sessionId: s.id }, 'could not free the slots of an orphaned session; their leases expire');
      }
    }
    if (failed.length > 0) this.log.warn({ sessions: failed.map((s) => s.id) }, 'failed orphaned streaming sessions');
    // the orphans just failed, and any ended session whose minutes never reached the ledger
    // (it was unreachable when the session ended): committed now, and marked, so none is lost
    const unsettled = [...failed, ...(await this.records.unsettled(this.orphanAfterMs))];
    const seen = new Set<string>();
    for (const s of unsettled) {
      if (seen.has(s.id)) continue;
      seen.add(s.id);
      try {
        await this.ledger.commitInstalments({ tenantId: s.tenantId, sourceKey: usageSourceKey(s.id), amount: minutesOf(s.durationMs) });
        await this.records.markSettled(s.id);
      } catch (e) {
        if (e instanceof GraphQLError && e.extensions.code === 'NOT_FOUND') await this.records.markSettled(s.id); // nothing was reserved
        else this.log.warn({ err: e, sessionId: s.id }, 'could not settle a session; retried on the next sweep');
      }
    }
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
