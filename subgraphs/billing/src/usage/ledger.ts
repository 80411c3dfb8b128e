import { and, eq, sql } from 'drizzle-orm';
import { appError, badInput, conflict, isUniqueViolation, notFound } from '@voxgate/kit';
import type { BillingStores } from '../context';
import { usageRecords, type UsageRecordRow } from '../db/schema';
import { QUOTA_GROUPS, type QuotaGroup } from '../limits/catalogue';
import { LimitsService } from '../limits/limits.service';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';

/**
 * The ledger quotas: only the `monthly*` fields of the quota catalogue. Storage limits and the
 * `max*` counts are gauges, enforced by the subgraph that owns the rows by counting them.
 */
export const LEDGER_QUOTAS: readonly { group: QuotaGroup; field: string; name: string }[] = (
  Object.entries(QUOTA_GROUPS) as [QuotaGroup, readonly string[]][]
).flatMap(([group, fields]) => fields.filter((f) => f.startsWith('monthly')).map((field) => ({ group, field, name: `${group}.${field}` })));

const BY_NAME = new Map(LEDGER_QUOTAS.flatMap((q) => [[q.name, q], [q.field, q]] as const));

export const DEFAULT_RESERVATION_TTL_SECONDS = 3600;
const MAX_TTL_SECONDS = 31 * 24 * 3600;

export interface UsagePeriod { start: Date; end: Date }

export interface QuotaUsageView {
  group: QuotaGroup;
  quota: string;
  /** committed usage in the period */
  used: number;
  /** unexpired reservations in the period */
  reserved: number;
  limit: number;
  /** limit − used − reserved, never below 0 */
  remaining: number;
}

export interface UsageView {
  periodStart: Date;
  periodEnd: Date;
  quotas: QuotaUsageView[];
}

export interface ReserveInput {
  tenantId: string;
  userId: string;
  /** `<group>.<field>` (e.g. `speech-service.monthlyTranscriptionMinutes`) or the bare field name */
  quota: string;
  amount: number;
  /** the producer's idempotency key, unique per tenant (e.g. `session:<id>`) */
  sourceKey: string;
  ttlSeconds?: number;
}

export type RecordInput = Omit<ReserveInput, 'ttlSeconds'>;

function ledgerQuota(quota: string): { group: QuotaGroup; field: string; name: string } {
  const q = typeof quota === 'string' ? BY_NAME.get(quota) : undefined;
  if (!q) {
    throw badInput(`quota: unknown monthly quota '${String(quota)}' (one of ${LEDGER_QUOTAS.map((x) => x.name).join(', ')})`, {
      fields: [{ field: 'quota', message: 'unknown monthly quota' }],
    });
  }
  return q;
}

function checkAmount(amount: unknown, field = 'amount', allowZero = false): number {
  const ok = typeof amount === 'number' && Number.isSafeInteger(amount) && (allowZero ? amount >= 0 : amount > 0);
  if (!ok) {
    const rule = allowZero ? 'a non-negative integer' : 'a positive integer';
    throw badInput(`${field}: must be ${rule}`, { fields: [{ field, message: `must be ${rule}` }] });
  }
  return amount;
}

function checkSourceKey(sourceKey: unknown): string {
  if (typeof sourceKey !== 'string' || sourceKey.length === 0 || sourceKey.length > 256) {
    throw badInput('sourceKey: must be a non-empty string of at most 256 characters', { fields: [{ field: 'sourceKey', message: 'required' }] });
  }
  return sourceKey;
}

/** The UTC calendar month containing `now`. */
export function calendarMonth(now: Date): UsagePeriod {
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
  };
}

const used = sql<number>`coalesce(sum(${usageRecords.amount}) filter (where ${usageRecords.state} = 'COMMITTED'), 0)::float8`.mapWith(Number);
const reserved = sql<number>`coalesce(sum(${usageRecords.amount}) filter (where ${usageRecords.state} = 'RESERVED' and ${usageRecords.expiresAt} > now()), 0)::float8`.mapWith(Number);

/**
 * The usage ledger of the monthly quotas. Work that consumes quota reserves before it starts,
 * commits the actual amount when done (or releases on failure before any usage); usage known only
 * afterwards is recorded directly. Every call is idempotent by the producer's source key.
 */
export class UsageLedger {
  constructor(private readonly deps: BillingStores) {}

  /** The user's active subscription period, else the UTC calendar month. */
  async period(tenantId: string, userId: string, now = new Date()): Promise<UsagePeriod> {
    const sub = await new SubscriptionsService(this.deps).current(tenantId, userId);
    return sub ? { start: sub.currentPeriodStart, end: sub.currentPeriodEnd } : calendarMonth(now);
  }

  private async periodAndLimits(tenantId: string, userId: string) {
    const [period, limits] = await Promise.all([this.period(tenantId, userId), new LimitsService(this.deps).effective(tenantId, userId)]);
    return { period, quotas: limits.quotas as Record<QuotaGroup, Record<string, number>> };
  }

  private async bySource(tenantId: string, sourceKey: string): Promise<UsageRecordRow | undefined> {
    const [row] = await this.deps.db.select().from(usageRecords).where(and(eq(usageRecords.tenantId, tenantId), eq(usageRecords.sourceKey, sourceKey)));
    return row;
  }

  private sameWork(row: UsageRecordRow, userId: string, quota: string): UsageRecordRow {
    if (row.userId !== userId || row.quota !== quota) {
      throw conflict(`sourceKey '${row.sourceKey}' is already used for ${row.quota} of another user or quota`);
    }
    return row;
  }

  /**
   * Reserves `amount` of a monthly quota. Per tenant+user+quota+period the check and insert run
   * under one transaction-scoped advisory lock, so committed + unexpired reservations + amount
   * never exceed the effective limit, whatever the concurrency or number of replicas.
   */
  async reserve(input: ReserveInput): Promise<UsageRecordRow> {
    const q = ledgerQuota(input.quota);
    const amount = checkAmount(input.amount);
    const sourceKey = checkSourceKey(input.sourceKey);
    const ttl = input.ttlSeconds ?? DEFAULT_RESERVATION_TTL_SECONDS;
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SECONDS) throw badInput(`ttlSeconds: must be an integer from 1 to ${MAX_TTL_SECONDS}`);
    const { tenantId, userId } = input;

    const existing = await this.bySource(tenantId, sourceKey);
    if (existing) return this.sameWork(existing, userId, q.name);

    const { period, quotas } = await this.periodAndLimits(tenantId, userId);
    const limit = quotas[q.group][q.field] ?? 0;
    const lockKey = `usage:${tenantId}:${userId}:${q.name}:${period.start.toISOString()}`;
    try {
      return await this.deps.txDb.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${lockKey}))`);
        const [again] = await tx.select().from(usageRecords).where(and(eq(usageRecords.tenantId, tenantId), eq(usageRecords.sourceKey, sourceKey)));
        if (again) return this.sameWork(again, userId, q.name);
        const [sums] = await tx.select({ used, reserved }).from(usageRecords).where(and(
          eq(usageRecords.tenantId, tenantId), eq(usageRecords.userId, userId), eq(usageRecords.quota, q.name),
          eq(usageRecords.periodStart, period.start), sql`${usageRecords.state} <> 'RELEASED'`,
        ));
        const taken = (sums?.used ?? 0) + (sums?.reserved ?? 0);
        if (taken + amount > limit) throw quotaExceeded(q.name, limit, taken, amount, period.end);
        const [row] = await tx.insert(usageRecords).values({
          tenantId, userId, quota: q.name, periodStart: period.start, periodEnd: period.end, amount, state: 'RESERVED', sourceKey,
          expiresAt: sql`now() + make_interval(secs => ${ttl})`,
        }).returning();
        if (!row) throw new Error('reservation not saved');
        return row;
      });
    } catch (e) {
      // the same key raced in under another user or quota (another lock): answer with that record
      if (isUniqueViolation(e)) {
        const row = await this.bySource(tenantId, sourceKey);
        if (row) return this.sameWork(row, userId, q.name);
      }
      throw e;
    }
  }

  /**
   * Turns a reservation into usage of `amount` (default: the reserved amount). The actual amount
   * counts even when it exceeds the reservation or the limit: the work has happened. Committing
   * an expired reservation still records it. Idempotent: a committed record is returned as is.
   */
  async commit(input: { tenantId: string; sourceKey: string; amount?: number }): Promise<UsageRecordRow> {
    const sourceKey = checkSourceKey(input.sourceKey);
    const amount = input.amount === undefined ? undefined : checkAmount(input.amount, 'amount', true);
    const now = new Date();
    const [row] = await this.deps.db.update(usageRecords)
      .set({ state: 'COMMITTED', amount: amount ?? sql`${usageRecords.amount}`, expiresAt: null, updatedAt: now })
      .where(and(eq(usageRecords.tenantId, input.tenantId), eq(usageRecords.sourceKey, sourceKey), eq(usageRecords.state, 'RESERVED')))
      .returning();
    if (row) return row;
    const current = await this.bySource(input.tenantId, sourceKey);
    if (!current) throw notFound('Usage reservation');
    if (current.state === 'RELEASED') throw conflict(`The reservation '${sourceKey}' was released and cannot be committed`);
    return current;
  }

  /**
   * Work that reserves as it goes, in instalments keyed `sourceKey`, `sourceKey:2`, `sourceKey:3`…
   * (a streaming session reserves its minutes a few at a time, so one long session does not hold a
   * month's budget). Commits `amount` across the instalments in order, each up to its own
   * reservation and the last one taking any excess; instalments already committed count as they
   * are. Idempotent once committed.
   */
  async commitInstalments(input: { tenantId: string; sourceKey: string; amount: number }): Promise<UsageRecordRow[]> {
    const sourceKey = checkSourceKey(input.sourceKey);
    let left = checkAmount(input.amount, 'amount', true);
    const rows = await this.deps.db.select().from(usageRecords).where(and(
      eq(usageRecords.tenantId, input.tenantId),
      sql`(${usageRecords.sourceKey} = ${sourceKey} or starts_with(${usageRecords.sourceKey}, ${`${sourceKey}:`}))`,
    ));
    const instalment = (k: string) => (k === sourceKey ? 1 : Number(k.slice(sourceKey.length + 1)));
    const ordered = rows.filter((r) => Number.isSafeInteger(instalment(r.sourceKey))).sort((a, b) => instalment(a.sourceKey) - instalment(b.sourceKey));
    if (ordered.length === 0) throw notFound('Usage reservation');
    const out: UsageRecordRow[] = [];
    const live = ordered.filter((r) => r.state !== 'RELEASED');
    for (const [i, row] of live.entries()) {
      if (row.state === 'COMMITTED') {
        left = Math.max(0, left - row.amount);
        out.push(row);
        continue;
      }
      const take = i === live.length - 1 ? left : Math.min(row.amount, left);
      out.push(await this.commit({ tenantId: input.tenantId, sourceKey: row.sourceKey, amount: take }));
      left -= take;
    }
    return out;
  }

  /** Gives a reservation's budget back (no usage). Idempotent; a committed record cannot be released. */
  async release(input: { tenantId: string; sourceKey: string }): Promise<UsageRecordRow> {
    const sourceKey = checkSourceKey(input.sourceKey);
    const [row] = await this.deps.db.update(usageRecords)
      .set({ state: 'RELEASED', expiresAt: null, updatedAt: new Date() })
      .where(and(eq(usageRecords.tenantId, input.tenantId), eq(usageRecords.sourceKey, sourceKey), eq(usageRecords.state, 'RESERVED')))
      .returning();
    if (row) return row;
    const current = await this.bySource(input.tenantId, sourceKey);
    if (!current) throw notFound('Usage reservation');
    if (current.state === 'COMMITTED') throw conflict(`The usage '${sourceKey}' is committed and cannot be released`);
    return current;
  }

  /** Usage known after the fact (no reservation, no limit check): one COMMITTED record per source key. */
  async record(input: RecordInput): Promise<UsageRecordRow> {
    const q = ledgerQuota(input.quota);
    const amount = checkAmount(input.amount);
    const sourceKey = checkSourceKey(input.sourceKey);
    const { tenantId, userId } = input;
    const existing = await this.bySource(tenantId, sourceKey);
    if (existing) return this.sameWork(existing, userId, q.name);
    const period = await this.period(tenantId, userId);
    const [row] = await this.deps.db.insert(usageRecords).values({
      tenantId, userId, quota: q.name, periodStart: period.start, periodEnd: period.end, amount, state: 'COMMITTED', sourceKey,
    }).onConflictDoNothing().returning();
    if (row) return row;
    const raced = await this.bySource(tenantId, sourceKey);
    if (!raced) throw new Error('usage record not saved');
    return this.sameWork(raced, userId, q.name);
  }

  /** Current-period usage against each monthly quota, in catalogue order. */
  async usage(tenantId: string, userId: string): Promise<UsageView> {
    const { period, quotas } = await this.periodAndLimits(tenantId, userId);
    const rows = await this.deps.db.select({ quota: usageRecords.quota, used, reserved }).from(usageRecords).where(and(
      eq(usageRecords.tenantId, tenantId), eq(usageRecords.userId, userId), eq(usageRecords.periodStart, period.start),
      sql`${usageRecords.state} <> 'RELEASED'`,
    )).groupBy(usageRecords.quota);
    const sums = new Map(rows.map((r) => [r.quota, r]));
    return {
      periodStart: period.start,
      periodEnd: period.end,
      quotas: LEDGER_QUOTAS.map((q) => {
        const s = sums.get(q.name);
        const limit = quotas[q.group][q.field] ?? 0;
        const u = s?.used ?? 0;
        const r = s?.reserved ?? 0;
        return { group: q.group, quota: q.field, used: u, reserved: r, limit, remaining: Math.max(0, limit - u - r) };
      }),
    };
  }
}

function quotaExceeded(quota: string, limit: number, used: number, amount: number, periodEnd: Date) {
  const retryAfterSeconds = Math.max(1, Math.ceil((periodEnd.getTime() - Date.now()) / 1000));
  return appError(
    'QUOTA_EXCEEDED',
    `Monthly quota ${quota} exceeded: limit ${limit}, used ${used} (including reservations), requested ${amount}; the period ends at ${periodEnd.toISOString()}`,
    { quota, limit, used, requested: amount, periodEnd: periodEnd.toISOString(), retryAfterSeconds },
  );
}
