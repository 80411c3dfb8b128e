import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgSchema, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** The tenancy subgraph owns this Postgres schema; no other subgraph reads or joins it. */
export const tenancy = pgSchema('tenancy');

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const roles = tenancy.table('roles', {
  id: uuid('id').primaryKey().defaultRandom(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  hierarchyOrder: integer('hierarchy_order').notNull(),
  scopes: text('scopes').array().notNull().default(sql`'{}'::text[]`),
  createdAt: ts('created_at').notNull().defaultNow(),
});

export const tenants = tenancy.table('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull().unique(),
  displayName: text('display_name').notNull(),
  description: text('description'),
  enabled: boolean('enabled').notNull().default(true),
  firstLoginRoleId: uuid('first_login_role_id').notNull().references(() => roles.id),
  defaultRoleId: uuid('default_role_id').notNull().references(() => roles.id),
  fileInternalPublishEnabled: boolean('file_internal_publish_enabled').notNull().default(true),
  fileDirectShareEnabled: boolean('file_direct_share_enabled').notNull().default(true),
  sessionMaxConcurrent: integer('session_max_concurrent').notNull().default(50),
  sessionRecordingEnabled: boolean('session_recording_enabled').notNull().default(false),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export const oidcProviders = tenancy.table(
  'oidc_providers',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    providerKey: text('provider_key').notNull().default('oidc'),
    clientId: text('client_id').notNull(),
    clientSecret: text('client_secret'),
    issuerUri: text('issuer_uri').notNull(),
    authorizationUri: text('authorization_uri'),
    tokenUri: text('token_uri').notNull(),
    userInfoUri: text('user_info_uri'),
    jwkSetUri: text('jwk_set_uri').notNull(),
    endSessionUri: text('end_session_uri'),
    introspectionUri: text('introspection_uri'),
    advertisedIssuer: text('advertised_issuer'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('oidc_providers_tenant_uq').on(t.tenantId),
    // a token's (issuer, client) must name exactly one tenant
    uniqueIndex('oidc_providers_issuer_client_uq').on(t.issuerUri, t.clientId),
  ],
);

export const users = tenancy.table(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    subject: text('subject').notNull(),
    username: text('username').notNull(),
    email: text('email'),
    displayName: text('display_name'),
    roleId: uuid('role_id').notNull().references(() => roles.id),
    // Service principals (the bootstrap administrator) do not count as a tenant's first human user.
    isService: boolean('is_service').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastLoginAt: ts('last_login_at'),
  },
  (t) => [
    uniqueIndex('users_tenant_subject_uq').on(t.tenantId, t.subject),
    uniqueIndex('users_tenant_username_uq').on(t.tenantId, sql`lower(${t.username})`),
  ],
);

export const apiKeys = tenancy.table(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    keyHash: text('key_hash').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    // null: identity-only key; otherwise the scopes granted at creation
    scopes: text('scopes').array(),
    expiresAt: ts('expires_at'),
    revokedAt: ts('revoked_at'),
    lastUsedAt: ts('last_used_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.keyHash), index('api_keys_user_idx').on(t.userId)],
);

export type RoleRow = typeof roles.$inferSelect;
export type TenantRow = typeof tenants.$inferSelect;
export type OidcProviderRow = typeof oidcProviders.$inferSelect;
export type UserRow = typeof users.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
