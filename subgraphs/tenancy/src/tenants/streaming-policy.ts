import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '@voxgate/kit';
import { tenants } from '../db/schema';

export interface TenantStreamingSettings {
  enabled: boolean;
  /** speechServiceSessionMaxConcurrent: live sessions across all the tenant's users */
  maxConcurrentSessions: number;
  /** speechServiceSessionRecordingEnabled */
  recordingEnabled: boolean;
}

/**
 * The tenant settings that govern streaming sessions, read fresh at every session start (a change
 * by an administrator applies to the next session). Tenancy's code on tenancy's table, handed to
 * the sessions domain as a function.
 */
export class TenantStreamingPolicy {
  constructor(private readonly db: Database) {}

  async settings(tenantId: string): Promise<TenantStreamingSettings | null> {
    const [t] = await this.db.select({
      enabled: tenants.enabled, maxConcurrentSessions: tenants.sessionMaxConcurrent, recordingEnabled: tenants.sessionRecordingEnabled,
    }).from(tenants).where(eq(tenants.id, tenantId));
    return t ?? null;
  }

  /** Which of these tenants are disabled now (their running sessions end). */
  async disabledAmong(tenantIds: string[]): Promise<string[]> {
    if (tenantIds.length === 0) return [];
    const rows = await this.db.select({ id: tenants.id }).from(tenants).where(and(inArray(tenants.id, tenantIds), eq(tenants.enabled, false)));
    return rows.map((r) => r.id);
  }
}
