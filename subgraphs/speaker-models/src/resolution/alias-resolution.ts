import { and, eq } from 'drizzle-orm';
import { appError, notFound } from '@voxgate/kit';
import { modelAliases, models, type AliasRow, type ModelFamily, type ModelRow } from '../db/schema';
import { ensureFamilySeeded, type SeedingDeps } from '../seeding';

export interface AliasDeprecation {
  deprecated: boolean;
  deprecationDate: Date | null;
  sunsetDate: Date | null;
  message: string | null;
}

/** What a record made through an alias stores as its lineage, and what the caller is told. */
export interface Resolution {
  requestedAlias: string | null;
  alias: AliasRow;
  model: ModelRow;
  usedFallback: boolean;
  /**
   * The alias's fallback model when the primary was chosen and the fallback is usable too
   * (AVAILABLE or DEPRECATED); null otherwise (no fallback, an unusable one, or it is already
   * `model`). A status says nothing about whether the engine answers right now: a caller that
   * cannot reach the primary's engine may switch to this one (and record `usedFallback`).
   */
  fallback: ModelRow | null;
  deprecation: AliasDeprecation;
}

const USABLE = new Set(['AVAILABLE', 'DEPRECATED']);

/** A model that may serve: AVAILABLE or DEPRECATED (MAINTENANCE and INACTIVE do not). */
export function usable(m: ModelRow): boolean {
  return USABLE.has(m.status);
}

/** Deprecation is in effect from its date on (immediately when none was given). */
export function deprecationOf(a: AliasRow, now: Date): AliasDeprecation {
  const inEffect = a.deprecated && (!a.deprecationDate || a.deprecationDate.getTime() <= now.getTime());
  return { deprecated: inEffect, deprecationDate: a.deprecationDate, sunsetDate: a.sunsetDate, message: a.deprecationMessage };
}

export function visibleTo(a: AliasRow, hierarchyOrder: number): boolean {
  return a.minHierarchyOrder === null || hierarchyOrder >= a.minHierarchyOrder;
}

export function pastSunset(a: AliasRow, now: Date): boolean {
  return a.sunsetDate !== null && a.sunsetDate.getTime() <= now.getTime();
}

/**
 * family + alias (or the tenant's default) → concrete model, for the enrollment, verification and
 * voice-print work and for streaming sessions (family 'asr'; pass the platform's deps, so the
 * tenant is seeded with the reference engine before its first resolution). AVAILABLE and DEPRECATED models serve; MAINTENANCE and INACTIVE
 * hand over to the alias's fallback when it is usable, else UNAVAILABLE. An alias the caller may not
 * see is NOT_FOUND; past its sunset it is GONE.
 */
export class AliasResolution {
  constructor(private readonly deps: SeedingDeps, private readonly family: ModelFamily) {}

  async resolve(input: { tenantId: string; alias: string | null; hierarchyOrder: number; now?: Date }): Promise<Resolution> {
    const now = input.now ?? new Date();
    await ensureFamilySeeded(this.deps, input.tenantId, this.family);
    const where = input.alias
      ? and(eq(modelAliases.tenantId, input.tenantId), eq(modelAliases.family, this.family), eq(modelAliases.alias, input.alias))
      : and(eq(modelAliases.tenantId, input.tenantId), eq(modelAliases.family, this.family), eq(modelAliases.isDefault, true));
    const [alias] = await this.deps.db.select().from(modelAliases).where(where);
    if (!alias || !visibleTo(alias, input.hierarchyOrder)) {
      if (!input.alias) throw appError('UNAVAILABLE', 'This tenant has no default model alias for this family');
      throw notFound('Model alias');
    }
    if (pastSunset(alias, now) && !input.alias) {
      throw appError('UNAVAILABLE', `The tenant's default model alias "${alias.alias}" was sunset; a new default is needed`);
    }
    if (pastSunset(alias, now)) {
      throw appError('GONE', `Model alias "${alias.alias}" was sunset on ${alias.sunsetDate?.toISOString()}${alias.deprecationMessage ? `: ${alias.deprecationMessage}` : ''}`, { alias: alias.alias, sunsetDate: alias.sunsetDate?.toISOString() });
    }
    const ids = [alias.resolvedModelId, alias.fallbackModelId].filter((v): v is string => !!v);
    const rows = await Promise.all(ids.map(async (id) => (await this.deps.db.select().from(models).where(eq(models.id, id)))[0]));
    const [primary, fallback] = rows;
    const deprecation = deprecationOf(alias, now);
    const usableFallback = fallback && usable(fallback) ? fallback : null;
    if (primary && usable(primary)) return { requestedAlias: input.alias, alias, model: primary, usedFallback: false, fallback: usableFallback, deprecation };
    if (usableFallback) return { requestedAlias: input.alias, alias, model: usableFallback, usedFallback: true, fallback: null, deprecation };
    throw appError('UNAVAILABLE', `Model alias "${alias.alias}" resolves to "${primary?.name}", which is ${primary?.status}${fallback ? `, and its fallback "${fallback.name}" is ${fallback.status}` : ' with no fallback configured'}`, { alias: alias.alias });
  }
}
