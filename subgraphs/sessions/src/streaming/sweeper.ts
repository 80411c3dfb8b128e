import type { Logger } from '@voxgate/kit';
import type { UsageLedger } from '@voxgate/billing';
import type { SessionRecords } from './records';
import { minutesOf, usageSourceKey } from './admission';

/** A live session whose edge stopped heart-beating for this long is considered orphaned. */
export const STALE_AFTER_MS = 30_000;
const SWEEP_EVERY_MS = 15_000;

/**
 * Ends the sessions of edges that crashed or were killed: FAILED, with their last recorded audio
 * duration counted against the monthly minutes (so duration counts even when the connection
 * fails with its edge). Every edge runs it; the conditional update lets only one win per session.
 */
export class OrphanSweeper {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly records: SessionRecords, private readonly ledger: UsageLedger, private readonly log: Logger) {}

  async sweep(): Promise<number> {
    const failed = await this.records.failStale(new Date(Date.now() - STALE_AFTER_MS), 'the edge running the session stopped responding');
    for (const s of failed) {
      try {
        await this.ledger.commitInstalments({ tenantId: s.tenantId, sourceKey: usageSourceKey(s.id), amount: minutesOf(s.durationMs) });
      } catch (e) {
        this.log.warn({ err: e, sessionId: s.id }, 'could not count an orphaned session');
      }
    }
    if (failed.length > 0) this.log.warn({ sessions: failed.map((s) => s.id) }, 'failed orphaned streaming sessions');
    return failed.length;
  }

  start(): void {
    const run = () => { void this.sweep().catch((e: unknown) => this.log.warn({ err: e }, 'session sweep failed')); };
    run();
    this.timer = setInterval(run, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
