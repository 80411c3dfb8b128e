import type { Logger } from '@voxgate/kit';
import type { SessionRecords } from './records';
import type { TenantSettingsSource } from './streaming-deps';

/** What the process-wide heartbeat asks of each running session. */
export interface LiveSession {
  readonly sessionId: string;
  readonly tenantId: string;
  /** the tenant was disabled: the session ends */
  tenantDisabled(): void;
  /** another edge ended the session (its heartbeats had stalled): the runner stops */
  endedElsewhere(): void;
  /** audio processed so far, and recording bytes written */
  progress(): { durationMs: number; recordingBytes: number };
  /** called on every heartbeat: the session checks its own idle timeout */
  tick(now: number): void;
}

/** Every 5 s, or a third of the orphan time when that is shorter (a live edge is never taken for dead). */
export function heartbeatMs(orphanAfterMs: number): number {
  return Math.min(5_000, Math.floor(orphanAfterMs / 3));
}

/**
 * The sessions this process runs, heart-beaten together: one UPDATE every 5 s for all of them
 * (hundreds of sessions would otherwise be hundreds of statements and timers), which also records
 * each one's audio duration, so what a crash leaves behind is counted, and one query for whether
 * any of their tenants was disabled.
 */
export class LiveSessions {
  private readonly sessions = new Set<LiveSession>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly records: SessionRecords,
    private readonly tenants: Pick<TenantSettingsSource, 'disabledAmong'>,
    private readonly log: Logger,
    private readonly intervalMs = 5_000,
  ) {}

  add(s: LiveSession): void {
    this.sessions.add(s);
    if (!this.timer) {
      this.timer = setInterval(() => { void this.beat(); }, this.intervalMs);
      this.timer.unref();
    }
  }

  delete(s: LiveSession): void {
    this.sessions.delete(s);
    if (this.sessions.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  get size(): number {
    return this.sessions.size;
  }

  async beat(): Promise<void> {
    const now = Date.now();
    const all = [...this.sessions];
    for (const s of all) s.tick(now);
    // the heartbeat first: a slow tenant check must not let another edge take these sessions for dead
    const live = all.filter((s) => this.sessions.has(s));
    if (live.length > 0) {
      try {
        const alive = await this.records.progressMany(live.map((s) => ({ id: s.sessionId, ...s.progress() })));
        for (const s of live) if (this.sessions.has(s) && !alive.has(s.sessionId)) s.endedElsewhere();
      } catch (e) {
        this.log.warn({ err: e, sessions: live.length }, 'session heartbeat failed');
      }
    }
    try {
      // disabling a tenant ends its running sessions on every edge within one heartbeat
      const disabled = new Set(await this.tenants.disabledAmong([...new Set(all.map((s) => s.tenantId))]));
      for (const s of all) if (disabled.has(s.tenantId)) s.tenantDisabled();
    } catch (e) {
      this.log.warn({ err: e }, 'checking disabled tenants failed');
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
