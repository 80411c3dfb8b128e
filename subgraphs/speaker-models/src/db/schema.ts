import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** The speaker-models subgraph's own Postgres schema. */
export const speakerModels = pgSchema('speaker_models');

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export type ModelFamily = 'sentver' | 'embedding' | 'asr';
export type ModelStatus = 'AVAILABLE' | 'DEPRECATED' | 'MAINTENANCE' | 'INACTIVE';
export type TlsMode = 'PLAINTEXT' | 'SYSTEM_TRUST' | 'MTLS';
export type AliasType = 'FAMILY' | 'PINNED' | 'CONCRETE';

export interface ThresholdDefaults {
  strictAcceptThreshold?: number | null;
  strictReviewThreshold?: number | null;
  balancedAcceptThreshold?: number | null;
  balancedReviewThreshold?: number | null;
  lenientAcceptThreshold?: number | null;
  lenientReviewThreshold?: number | null;
}

/** Concrete models of both families; a name is immutable and unique per tenant and family. */
export const models = speakerModels.table(
  'models',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    family: text('family').$type<ModelFamily>().notNull(),
    name: text('name').notNull(),
    displayName: text('display_name').notNull(),
    description: text('description'),
    status: text('status').$type<ModelStatus>().notNull(),
    statusMessage: text('status_message'),
    deprecatedAt: ts('deprecated_at'),
    inactiveAt: ts('inactive_at'),
    supportedLocales: text('supported_locales').array(),
    maxExpectedTextLength: integer('max_expected_text_length'),
    grpcTarget: text('grpc_target').notNull(),
    grpcTlsMode: text('grpc_tls_mode').$type<TlsMode>().notNull(),
    grpcAuthority: text('grpc_authority'),
    grpcDeadlineMs: integer('grpc_deadline_ms').notNull(),
    grpcMaxInboundMessageBytes: integer('grpc_max_inbound_message_bytes'),
    grpcMetadata: jsonb('grpc_metadata').$type<Record<string, string>>(),
    thresholdDefaults: jsonb('threshold_defaults').$type<ThresholdDefaults>(),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('models_name_uq').on(t.tenantId, t.family, t.name)],
);

export const modelAliases = speakerModels.table(
  'model_aliases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    family: text('family').$type<ModelFamily>().notNull(),
    alias: text('alias').notNull(),
    type: text('type').$type<AliasType>().notNull(),
    displayName: text('display_name').notNull(),
    description: text('description'),
    // RESTRICT: a model an alias points at cannot be deleted
    resolvedModelId: uuid('resolved_model_id').notNull().references(() => models.id, { onDelete: 'restrict' }),
    fallbackModelId: uuid('fallback_model_id').references(() => models.id, { onDelete: 'restrict' }),
    isDefault: boolean('is_default').notNull().default(false),
    deprecated: boolean('deprecated').notNull().default(false),
    deprecationDate: ts('deprecation_date'),
    sunsetDate: ts('sunset_date'),
    deprecationMessage: text('deprecation_message'),
    minHierarchyOrder: integer('min_hierarchy_order'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('model_aliases_name_uq').on(t.tenantId, t.family, t.alias),
    // at most one default per tenant and family, whatever the concurrency
    uniqueIndex('model_aliases_default_uq').on(t.tenantId, t.family).where(sql`is_default`),
  ],
);

/**
 * Lineage of a record produced through an alias (enrollments, verifications, voice prints). It is
 * copied at creation and never follows the alias afterwards: deleting or re-resolving the alias
 * leaves the record saying exactly what produced it. The model is referenced with RESTRICT, so a
 * model with retained records cannot be deleted.
 */
function lineage() {
  return {
    /** the alias the client named; null when it relied on the tenant default */
    requestedAlias: text('requested_alias'),
    /** the alias actually used (the default's name when none was requested), as it was named then */
    resolvedAlias: text('resolved_alias'),
    resolvedModelId: uuid('resolved_model_id').notNull().references(() => models.id, { onDelete: 'restrict' }),
    /** the model's immutable name, kept for reading without a join */
    resolvedModelName: text('resolved_model_name').notNull(),
    usedFallback: boolean('used_fallback').notNull().default(false),
  };
}

/** Voice prints (speaker-embedding family). Filled by the voice-print issue; counted now. */
export const voicePrints = speakerModels.table(
  'voice_prints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    speakerId: uuid('speaker_id').notNull(),
    ...lineage(),
    isDefault: boolean('is_default').notNull().default(false),
    active: boolean('active').notNull().default(true),
    deletedAt: ts('deleted_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('voice_prints_model_idx').on(t.resolvedModelId)],
);

/** Enrollments and verifications (sentence-verification family), retained until purged. */
export const enrollments = speakerModels.table(
  'enrollments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    speakerId: uuid('speaker_id').notNull(),
    ...lineage(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('enrollments_model_idx').on(t.resolvedModelId)],
);

export const verifications = speakerModels.table(
  'verifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull(),
    speakerId: uuid('speaker_id').notNull(),
    ...lineage(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('verifications_model_idx').on(t.resolvedModelId)],
);

/**
 * Families seeded with the platform's reference engine for a tenant, once: an administrator who
 * later deletes the seeded model and alias is not overruled by a second seeding.
 */
export const seededFamilies = speakerModels.table(
  'seeded_families',
  {
    tenantId: uuid('tenant_id').notNull(),
    family: text('family').$type<ModelFamily>().notNull(),
    seededAt: ts('seeded_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('seeded_families_pk').on(t.tenantId, t.family)],
);

export type ModelRow = typeof models.$inferSelect;
export type AliasRow = typeof modelAliases.$inferSelect;
