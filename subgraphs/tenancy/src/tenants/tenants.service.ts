import { asc, count, eq } from 'drizzle-orm';
import { appError, badInput, conflict, forbidden, isUniqueViolation, isUuid, notFound, type Database, type Identity } from '@voxgate/kit';
import { z } from 'zod';
import { bumpAuthnEpoch } from '../authn-epoch';
import { isSystemCaller, SYSTEM_TENANT, type TenancyDeps } from '../context';
import { oidcProviders, roles, tenants, type RoleRow, type TenantRow } from '../db/schema';
import { createLoaders, type Loaders } from '../loaders';
import { oidcProviderInputSchema } from '../oidc/provider-input';
import { parseInput } from '../validation';

const slug = z
  .string()
  .max(64, 'must be at most 64 characters')
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'must be a slug: lowercase letters, digits and inner hyphens');
const displayName = z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters');
const description = z.string().max(256, 'must be at most 256 characters').nullish();
const maxConcurrent = z.number().int().min(1, 'must be at least 1').max(100_000);
const roleId = z.string().refine(isUuid, 'must be a UUID').transform((s) => s.toLowerCase());

const createSchema = z.object({
  name: slug,
  displayName,
  description,
  firstLoginRoleId: roleId,
  defaultRoleId: roleId,
  oidcProvider: oidcProviderInputSchema.nullish(),
  speechServiceFileInternalPublishEnabled: z.boolean().nullish(),
  speechServiceFileDirectShareEnabled: z.boolean().nullish(),
  speechServiceSessionMaxConcurrent: maxConcurrent.nullish(),
  speechServiceSessionRecordingEnabled: z.boolean().nullish(),
});

const updateSchema = z.object({
  displayName: displayName.nullish(),
  description,
  firstLoginRoleId: roleId.nullish(),
  defaultRoleId: roleId.nullish(),
  speechServiceFileInternalPublishEnabled: z.boolean().nullish(),
  speechServiceFileDirectShareEnabled: z.boolean().nullish(),
  speechServiceSessionMaxConcurrent: maxConcurrent.nullish(),
  speechServiceSessionRecordingEnabled: z.boolean().nullish(),
});

const pageSchema = z.object({
  page: z.number().int().min(0, 'page must be zero or more'),
  size: z.number().int().min(1, 'size must be at least 1').max(100, 'size must be at most 100'),
});

export class TenantsService {
  constructor(
    private readonly deps: TenancyDeps,
    private readonly loaders: Loaders = createLoaders(deps.db),
  ) {}

  /** Callers outside the system tenant only ever see their own tenant; others are "not found". */
  async visible(identity: Identity, rawId: string): Promise<TenantRow> {
    if (!isUuid(rawId)) throw notFound('Tenant');
    const id = rawId.toLowerCase();
    if (!isSystemCaller(identity) && identity.tenantId !== id) throw notFound('Tenant');
    const row = await this.loaders.tenant.load(id);
    if (!row) throw notFound('Tenant');
    return row;
  }

  async list(identity: Identity, page: number, size: number): Promise<{ rows: TenantRow[]; total: number }> {
    parseInput(pageSchema, { page, size });
    const where = isSystemCaller(identity) ? undefined : eq(tenants.id, identity.tenantId ?? '00000000-0000-0000-0000-000000000000');
    const [rows, [totalRow]] = await Promise.all([
      this.deps.db.select().from(tenants).where(where).orderBy(asc(tenants.createdAt), asc(tenants.id)).limit(size).offset(page * size),
      this.deps.db.select({ n: count() }).from(tenants).where(where),
    ]);
    return { rows, total: Number(totalRow?.n ?? 0) };
  }

  private async role(id: string, field: string, db: Database = this.deps.db): Promise<RoleRow> {
    const [row] = await db.select().from(roles).where(eq(roles.id, id.toLowerCase()));
    if (!row) throw badInput(`${field}: no role has this id`, { fields: [{ field, message: 'unknown role' }] });
    return row;
  }

  private checkRoles(identity: Identity, firstLogin: RoleRow, dflt: RoleRow, firstLoginChanged: boolean): void {
    if (firstLoginChanged && firstLogin.hierarchyOrder >= identity.hierarchyOrder) {
      throw forbidden('firstLoginRoleId: the first-login role must rank below your own role');
    }
    if (dflt.hierarchyOrder > firstLogin.hierarchyOrder) {
      throw badInput('defaultRoleId: the default role must not outrank the first-login role', {
        fields: [{ field: 'defaultRoleId', message: 'outranks the first-login role' }],
      });
    }
  }

  async create(identity: Identity, raw: unknown): Promise<TenantRow> {
    if (!isSystemCaller(identity)) throw forbidden('Only system administrators create tenants');
    const input = parseInput(createSchema, raw);
    const [firstLogin, dflt] = await Promise.all([
      this.role(input.firstLoginRoleId, 'firstLoginRoleId'),
      this.role(input.defaultRoleId, 'defaultRoleId'),
    ]);
    this.checkRoles(identity, firstLogin, dflt, true);
    try {
      return await this.deps.txDb.transaction(async (tx) => {
        const [row] = await tx
          .insert(tenants)
          .values({
            name: input.name,
            displayName: input.displayName,
            description: input.description ?? null,
            firstLoginRoleId: firstLogin.id,
            defaultRoleId: dflt.id,
            fileInternalPublishEnabled: input.speechServiceFileInternalPublishEnabled ?? true,
            fileDirectShareEnabled: input.speechServiceFileDirectShareEnabled ?? true,
            sessionMaxConcurrent: input.speechServiceSessionMaxConcurrent ?? 50,
            sessionRecordingEnabled: input.speechServiceSessionRecordingEnabled ?? false,
          })
          .returning();
        if (!row) throw new Error('tenant not saved');
        if (input.oidcProvider) await tx.insert(oidcProviders).values({ tenantId: row.id, ...input.oidcProvider });
        return row;
      });
    } catch (e) {
      if (isUniqueViolation(e)) {
        throw conflict(`A tenant named "${input.name}" already exists, or its OIDC issuer and client id are taken`);
      }
      throw e;
    }
  }

  /** Checks and writes under a row lock, so concurrent updates cannot together break the role rules. */
  async update(identity: Identity, rawId: string, raw: unknown): Promise<TenantRow> {
    const { id } = await this.visible(identity, rawId);
    const input = parseInput(updateSchema, raw);
    return this.deps.txDb.transaction(async (tx) => {
      const [current] = await tx.select().from(tenants).where(eq(tenants.id, id)).for('update');
      if (!current) throw notFound('Tenant');
      return this.applyUpdate(tx, identity, current, input);
    });
  }

  private async applyUpdate(tx: Database, identity: Identity, current: TenantRow, input: z.infer<typeof updateSchema>): Promise<TenantRow> {
    const id = current.id;
    const firstLoginChanged = input.firstLoginRoleId != null && input.firstLoginRoleId !== current.firstLoginRoleId;
    if (input.firstLoginRoleId != null || input.defaultRoleId != null) {
      const firstLogin = await this.role(input.firstLoginRoleId ?? current.firstLoginRoleId, 'firstLoginRoleId', tx);
      const dflt = await this.role(input.defaultRoleId ?? current.defaultRoleId, 'defaultRoleId', tx);
      this.checkRoles(identity, firstLogin, dflt, firstLoginChanged);
    }
    const set: Partial<typeof tenants.$inferInsert> = { updatedAt: new Date() };
    if (input.displayName != null) set.displayName = input.displayName;
    if (input.description !== undefined) set.description = input.description;
    if (input.firstLoginRoleId != null) set.firstLoginRoleId = input.firstLoginRoleId;
    if (input.defaultRoleId != null) set.defaultRoleId = input.defaultRoleId;
    if (input.speechServiceFileInternalPublishEnabled != null) set.fileInternalPublishEnabled = input.speechServiceFileInternalPublishEnabled;
    if (input.speechServiceFileDirectShareEnabled != null) set.fileDirectShareEnabled = input.speechServiceFileDirectShareEnabled;
    if (input.speechServiceSessionMaxConcurrent != null) set.sessionMaxConcurrent = input.speechServiceSessionMaxConcurrent;
    if (input.speechServiceSessionRecordingEnabled != null) set.sessionRecordingEnabled = input.speechServiceSessionRecordingEnabled;
    const [row] = await tx.update(tenants).set(set).where(eq(tenants.id, id)).returning();
    if (!row) throw notFound('Tenant');
    return row;
  }

  async setEnabled(identity: Identity, rawId: string, enabled: boolean): Promise<TenantRow> {
    if (!isSystemCaller(identity)) throw forbidden('Only system administrators enable or disable tenants');
    const current = await this.visible(identity, rawId);
    const id = current.id;
    if (!enabled && current.name === SYSTEM_TENANT) throw appError('CONFLICT', 'The system tenant cannot be disabled');
    const [row] = await this.deps.db.update(tenants).set({ enabled, updatedAt: new Date() }).where(eq(tenants.id, id)).returning();
    if (!row) throw notFound('Tenant');
    // existing tokens and keys of a disabled tenant must stop working at once, on every edge
    await bumpAuthnEpoch(this.deps.redis);
    return row;
  }
}
