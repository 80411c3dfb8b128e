import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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

export type PlanRow = typeof plans.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;
