import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { conflict, isForeignKeyViolation, isUniqueViolation, notFound, type Identity } from '@voxgate/kit';
import { tenantOf, type SpeakerModelsDeps } from '../context';
import { modelAliases, models, type AliasRow, type AliasType, type ModelFamily, type ModelRow } from '../db/schema';
import { ensureFamilySeeded, type SeedingDeps } from '../seeding';
import { checkName, checkText, Problems } from '../shared/validation';

export interface AliasWithModels extends AliasRow {
  resolved: ModelRow;
  fallback: ModelRow | null;
}

export interface AliasInput {
  type: AliasType;
  displayName: string;
  description?: string | null;
  resolvedModel: string;
  fallbackModel?: string | null;
  isDefault?: boolean | null;
  minHierarchyOrder?: number | null;
  deprecated?: boolean | null;
  deprecationDate?: string | null;
  sunsetDate?: string | null;
  deprecationMessage?: string | null;
}

export interface Deprecation {
  deprecationDate?: string | null;
  sunsetDate?: string | null;
  message?: string | null;
}

const LABEL: Record<ModelFamily, string> = { sentver: 'Sentence-verification alias', embedding: 'Speaker-embedding alias', asr: 'Speech-recognition alias' };
const MODEL_KIND: Record<ModelFamily, string> = { sentver: 'sentence-verification', embedding: 'speaker-embedding', asr: 'speech-recognition' };

function parseDate(p: Problems, field: string, value: string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    p.add(field, 'must be an ISO 8601 date or timestamp');
    return null;
  }
  return d;
}

export class AliasesService {
  constructor(private readonly deps: Pick<SpeakerModelsDeps, 'db' | 'txDb'> & SeedingDeps, private readonly family: ModelFamily) {}

  /** The tenant, seeded first (ASR: the reference engine's model and default alias). */
  private async seeded(tenantId: string): Promise<string> {
    await ensureFamilySeeded(this.deps, tenantId, this.family);
    return tenantId;
  }

  private async withModels(rows: AliasRow[]): Promise<AliasWithModels[]> {
    if (rows.length === 0) return [];
    const ids = [...new Set(rows.flatMap((r) => [r.resolvedModelId, r.fallbackModelId]).filter((v): v is string => !!v))];
    const found = await this.deps.db.select().from(models).where(inArray(models.id, ids));
    const byId = new Map(found.map((m) => [m.id, m]));
    return rows.map((r) => ({ ...r, resolved: byId.get(r.resolvedModelId) as ModelRow, fallback: r.fallbackModelId ? byId.get(r.fallbackModelId) ?? null : null }));
  }

  async list(identity: Identity): Promise<AliasWithModels[]> {
    return this.listOf(tenantOf(identity));
  }

  async listOf(tenantId: string): Promise<AliasWithModels[]> {
    await this.seeded(tenantId);
    const rows = await this.deps.db.select().from(modelAliases)
      .where(and(eq(modelAliases.tenantId, tenantId), eq(modelAliases.family, this.family))).orderBy(asc(modelAliases.alias));
    return this.withModels(rows);
  }

  async get(identity: Identity, alias: string): Promise<AliasWithModels> {
    const tenantId = await this.seeded(tenantOf(identity));
    const [row] = await this.deps.db.select().from(modelAliases)
      .where(and(eq(modelAliases.tenantId, tenantId), eq(modelAliases.family, this.family), eq(modelAliases.alias, alias)));
    if (!row) throw notFound(LABEL[this.family]);
    const [full] = await this.withModels([row]);
    return full as AliasWithModels;
  }

  private async modelId(tenantId: string, p: Problems, field: string, name: string | null | undefined): Promise<string | null> {
    if (!name) return null;
    const [m] = await this.deps.db.select({ id: models.id }).from(models)
      .where(and(eq(models.tenantId, tenantId), eq(models.family, this.family), eq(models.name, name)));
    if (!m) p.add(field, `no ${MODEL_KIND[this.family]} model named "${name}"`);
    return m?.id ?? null;
  }

  /**
   * Creates or updates. The tenant's first alias of a family becomes its default; naming another
   * alias default moves the flag, under a per-tenant lock and a partial unique index, so there is
   * never more than one default even under concurrent requests.
   */
  async upsert(identity: Identity, alias: string, input: AliasInput): Promise<{ alias: AliasWithModels; created: boolean }> {
    const tenantId = await this.seeded(tenantOf(identity));
    const p = new Problems();
    checkName(p, 'alias', alias);
    if (!['FAMILY', 'PINNED', 'CONCRETE'].includes(input.type)) p.add('type', 'must be FAMILY, PINNED or CONCRETE');
    checkText(p, 'displayName', input.displayName, 128, true);
    checkText(p, 'description', input.description, 1024, false);
    checkText(p, 'deprecationMessage', input.deprecationMessage, 1024, false);
    if (input.minHierarchyOrder != null && (!Number.isInteger(input.minHierarchyOrder) || input.minHierarchyOrder < 0)) p.add('minHierarchyOrder', 'must be a whole number of at least 0');
    if (input.type === 'CONCRETE' && input.resolvedModel !== alias) p.add('resolvedModel', 'a CONCRETE alias resolves to the model of the same name');
    if (!input.resolvedModel) p.add('resolvedModel', 'is required');
    if (input.fallbackModel && input.fallbackModel === input.resolvedModel) p.add('fallbackModel', 'must differ from resolvedModel');
    const deprecationDate = parseDate(p, 'deprecationDate', input.deprecationDate);
    const sunsetDate = parseDate(p, 'sunsetDate', input.sunsetDate);
    if (deprecationDate && sunsetDate && sunsetDate < deprecationDate) p.add('sunsetDate', 'must not be before deprecationDate');
    const resolvedModelId = await this.modelId(tenantId, p, 'resolvedModel', input.resolvedModel);
    const fallbackModelId = await this.modelId(tenantId, p, 'fallbackModel', input.fallbackModel);
    p.throwIfAny();
    const deprecated = input.deprecated ?? (input.deprecationDate != null || input.sunsetDate != null ? true : undefined);
    const values = {
      type: input.type, displayName: input.displayName, description: input.description ?? null,
      resolvedModelId: resolvedModelId as string, fallbackModelId,
      minHierarchyOrder: input.minHierarchyOrder ?? null,
      ...(deprecated !== undefined ? { deprecated, deprecationDate: deprecated ? deprecationDate ?? new Date() : null, sunsetDate: deprecated ? sunsetDate : null, deprecationMessage: deprecated ? input.deprecationMessage ?? null : null } : {}),
    };
    try {
      const result = await this.deps.txDb.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`aliases:${tenantId}:${this.family}`}))`);
        const [existing] = await tx.select().from(modelAliases)
          .where(and(eq(modelAliases.tenantId, tenantId), eq(modelAliases.family, this.family), eq(modelAliases.alias, alias)));
        const [currentDefault] = await tx.select({ id: modelAliases.id }).from(modelAliases)
          .where(and(eq(modelAliases.tenantId, tenantId), eq(modelAliases.family, this.family), eq(modelAliases.isDefault, true)));
        // the default moves by naming another alias default, never by unsetting it: a family with
        // aliases always has exactly one
        if (input.isDefault === false && existing?.isDefault) {
          throw conflict(`"${alias}" is the default alias; make another alias the default instead`);
        }
        const makeDefault = input.isDefault === true || (!currentDefault && input.isDefault !== false);
        if (makeDefault && currentDefault && currentDefault.id !== existing?.id) {
          await tx.update(modelAliases).set({ isDefault: false, updatedAt: new Date() }).where(eq(modelAliases.id, currentDefault.id));
        }
        const isDefault = makeDefault ? true : input.isDefault === false ? false : existing?.isDefault ?? false;
        if (existing) {
          const [row] = await tx.update(modelAliases).set({ ...values, isDefault, updatedAt: new Date() }).where(eq(modelAliases.id, existing.id)).returning();
          return { row: row as AliasRow, created: false };
        }
        const [row] = await tx.insert(modelAliases).values({ tenantId, family: this.family, alias, ...values, isDefault }).returning();
        return { row: row as AliasRow, created: true };
      });
      const [full] = await this.withModels([result.row]);
      return { alias: full as AliasWithModels, created: result.created };
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict('Another change to this tenant\'s aliases happened at the same time; retry');
      if (isForeignKeyViolation(e)) throw conflict('The model was deleted meanwhile; retry with an existing model');
      throw e;
    }
  }

  /** Re-points the alias; existing records keep the lineage they were created with. */
  async resolve(identity: Identity, alias: string, resolvedModel: string, fallbackModel: string | null): Promise<AliasWithModels> {
    const current = await this.get(identity, alias);
    const p = new Problems();
    if (current.type === 'CONCRETE' && resolvedModel !== alias) p.add('resolvedModel', 'a CONCRETE alias resolves to the model of the same name');
    if (fallbackModel && fallbackModel === resolvedModel) p.add('fallbackModel', 'must differ from resolvedModel');
    const resolvedModelId = await this.modelId(current.tenantId, p, 'resolvedModel', resolvedModel);
    const fallbackModelId = await this.modelId(current.tenantId, p, 'fallbackModel', fallbackModel);
    if (!resolvedModel) p.add('resolvedModel', 'is required');
    p.throwIfAny();
    try {
      await this.deps.db.update(modelAliases).set({ resolvedModelId: resolvedModelId as string, fallbackModelId, updatedAt: new Date() }).where(eq(modelAliases.id, current.id));
    } catch (e) {
      if (isForeignKeyViolation(e)) throw conflict('The model was deleted meanwhile; retry with an existing model');
      throw e;
    }
    return this.get(identity, alias);
  }

  async deprecate(identity: Identity, alias: string, d: Deprecation): Promise<AliasWithModels> {
    const current = await this.get(identity, alias);
    const p = new Problems();
    const sunsetDate = parseDate(p, 'sunsetDate', d.sunsetDate);
    // without a date: keep the one already in force, else now (or the sunset, for an immediate one)
    const fallbackDate = current.deprecated && current.deprecationDate ? current.deprecationDate
      : sunsetDate && sunsetDate.getTime() < Date.now() ? sunsetDate : new Date();
    const deprecationDate = parseDate(p, 'deprecationDate', d.deprecationDate) ?? fallbackDate;
    checkText(p, 'message', d.message, 1024, false);
    if (sunsetDate && sunsetDate < deprecationDate) p.add('sunsetDate', 'must not be before deprecationDate');
    p.throwIfAny();
    await this.deps.db.update(modelAliases).set({ deprecated: true, deprecationDate, sunsetDate, deprecationMessage: d.message ?? null, updatedAt: new Date() })
      .where(eq(modelAliases.id, current.id));
    return this.get(identity, alias);
  }

  async undeprecate(identity: Identity, alias: string): Promise<AliasWithModels> {
    const current = await this.get(identity, alias);
    await this.deps.db.update(modelAliases).set({ deprecated: false, deprecationDate: null, sunsetDate: null, deprecationMessage: null, updatedAt: new Date() })
      .where(eq(modelAliases.id, current.id));
    return this.get(identity, alias);
  }

  /** Records made through the alias keep their lineage (alias name and model are copied into them). */
  async remove(identity: Identity, alias: string): Promise<void> {
    const current = await this.get(identity, alias);
    await this.deps.txDb.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`aliases:${current.tenantId}:${this.family}`}))`);
      if (current.isDefault) {
        const [other] = await tx.select({ id: modelAliases.id }).from(modelAliases)
          .where(and(eq(modelAliases.tenantId, current.tenantId), eq(modelAliases.family, this.family), ne(modelAliases.id, current.id))).limit(1);
        // exactly one default while any alias exists
        if (other) throw conflict(`"${alias}" is the default alias; make another alias the default before deleting it`);
      }
      await tx.delete(modelAliases).where(eq(modelAliases.id, current.id));
    });
  }
}
