import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { QuotaValues, RateLimitValues } from '../limits/catalogue';

/** The billing subgraph's own Postgres schema. Tenants and users are referenced by id only. */
export const billing = pgSchema('billing');

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const plans = billing.table(
  'plans',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    active: boolean('active').notNull().default(true),
    displayOrder: integer('display_order').notNull().default(0),
    quotas: jsonb('quotas').$type<QuotaValues>(),
    rateLimits: jsonb('rate_limits').$type<RateLimitValues>(),
    permissions: text('permissions').array().notNull().default(sql`'{}'::text[]`),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('plans_tenant_slug_uq').on(t.tenantId, t.slug)],
);

export const subscriptions = billing.table(
  'subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    userId: uuid('user_id').notNull(),
    planId: uuid('plan_id').notNull().references(() => plans.id),
    status: text('status', { enum: ['ACTIVE', 'CANCELED'] }).notNull(),
    currentPeriodStart: ts('current_period_start').notNull(),
    currentPeriodEnd: ts('current_period_end').notNull(),
    canceledAt: ts('canceled_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    // one active subscription per user, also under concurrent assignments
    uniqueIndex('subscriptions_active_user_uq').on(t.tenantId, t.userId).where(sql`status = 'ACTIVE'`),
    index('subscriptions_user_idx').on(t.tenantId, t.userId),
  ],
);

/** Tenant-wide defaults: rate limits and quotas; null groups/fields inherit the platform's. */
export const tenantLimits = billing.table('tenant_limits', {
  tenantId: uuid('tenant_id').primaryKey(),
  rateLimits: jsonb('rate_limits').$type<RateLimitValues>().notNull().default({}),
  quotas: jsonb('quotas').$type<QuotaValues>().notNull().default({}),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/** Per-user overrides, the most specific layer. */
export const userLimits = billing.table(
  'user_limits',
  {
    tenantId: uuid('tenant_id').notNull(),
    userId: uuid('user_id').notNull(),
    rateLimits: jsonb('rate_limits').$type<RateLimitValues>().notNull().default({}),
    quotas: jsonb('quotas').$type<QuotaValues>().notNull().default({}),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('user_limits_uq').on(t.tenantId, t.userId)],
);

/**
 * The usage ledger of the monthly quotas (usage/ledger.ts). One row per unit of work, keyed by the
 * producer's idempotency key (`source_key`, unique per tenant). RESERVED rows count while
 * unexpired; COMMITTED rows are usage; RELEASED rows count nothing.
 */
export const usageRecords = billing.table(
  'usage_records',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    userId: uuid('user_id').notNull(),
    /** `<group>.<field>`, e.g. `speech-service.monthlyTranscriptionMinutes` */
    quota: text('quota').notNull(),
    periodStart: ts('period_start').notNull(),
    periodEnd: ts('period_end').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    state: text('state', { enum: ['RESERVED', 'COMMITTED', 'RELEASED'] }).notNull(),
    sourceKey: text('source_key').notNull(),
    /** reservations only: after this instant an uncommitted reservation stops counting */
    expiresAt: ts('expires_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('usage_records_source_uq').on(t.tenantId, t.sourceKey),
    // the per-period sum: committed usage, and reservations that may still count
    index('usage_records_period_idx').on(t.tenantId, t.userId, t.quota, t.periodStart).where(sql`state <> 'RELEASED'`),
  ],
);

export type PlanRow = typeof plans.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type UsageRecordRow = typeof usageRecords.$inferSelect;
