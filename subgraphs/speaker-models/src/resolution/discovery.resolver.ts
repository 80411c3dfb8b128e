import { and, asc, eq, inArray } from 'drizzle-orm';
import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { tenantOf, type SpeakerModelsContext } from '../context';
import { modelAliases, models, type ModelFamily } from '../db/schema';
import { ensureFamilySeeded } from '../seeding';
import type { ModelAliasType } from '../shared/graphql-types';
import { AliasResolution, deprecationOf, pastSunset, visibleTo, type Resolution } from './alias-resolution';
import { ModelAliasOption, ModelAliasResolution } from './discovery.types';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

async function options(ctx: SpeakerModelsContext, family: ModelFamily): Promise<ModelAliasOption[]> {
  const now = new Date();
  const tenantId = tenantOf(ctx.identity);
  await ensureFamilySeeded(ctx.deps, tenantId, family);
  const rows = await ctx.deps.db.select().from(modelAliases)
    .where(and(eq(modelAliases.tenantId, tenantId), eq(modelAliases.family, family))).orderBy(asc(modelAliases.alias));
  const visible = rows.filter((a) => visibleTo(a, ctx.identity.hierarchyOrder) && !pastSunset(a, now));
  const ids = visible.map((a) => a.resolvedModelId);
  const locales = new Map((ids.length ? await ctx.deps.db.select({ id: models.id, l: models.supportedLocales }).from(models).where(inArray(models.id, ids)) : []).map((m) => [m.id, m.l]));
  return visible.map((a) => {
    const d = deprecationOf(a, now);
    return {
      alias: a.alias, type: a.type as ModelAliasType, displayName: a.displayName, description: a.description, isDefault: a.isDefault,
      deprecated: d.deprecated, deprecationDate: iso(d.deprecationDate), sunsetDate: iso(d.sunsetDate), deprecationMessage: d.message,
      supportedLocales: locales.get(a.resolvedModelId) ?? null,
    };
  });
}

function toResolution(r: Resolution): ModelAliasResolution {
  return {
    requestedAlias: r.requestedAlias, alias: r.alias.alias, resolvedModel: r.model.name, usedFallback: r.usedFallback,
    deprecated: r.deprecation.deprecated, deprecationDate: iso(r.deprecation.deprecationDate), sunsetDate: iso(r.deprecation.sunsetDate),
    deprecationMessage: r.deprecation.message,
  };
}

/** User-facing discovery: the aliases a caller may name, honouring minHierarchyOrder and sunset. */
@Resolver()
export class AliasDiscoveryResolver {
  @Authorized(SCOPES.speakerModelsRead)
  @Query(() => [ModelAliasOption], { description: 'Sentence-verification aliases the caller may use.' })
  async sentverModelAliasOptions(@Ctx() ctx: SpeakerModelsContext): Promise<ModelAliasOption[]> {
    return options(ctx, 'sentver');
  }

  @Authorized(SCOPES.speakerModelsRead)
  @Query(() => [ModelAliasOption], { description: 'Speaker-embedding aliases the caller may use.' })
  async speakerEmbeddingModelAliasOptions(@Ctx() ctx: SpeakerModelsContext): Promise<ModelAliasOption[]> {
    return options(ctx, 'embedding');
  }

  @Authorized(SCOPES.speakerModelsRead)
  @Query(() => ModelAliasResolution, { description: 'The concrete model an alias (or the tenant default) resolves to now; GONE after its sunset.' })
  async sentverModelAliasResolution(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String, { nullable: true }) alias: string | null): Promise<ModelAliasResolution> {
    return toResolution(await new AliasResolution(ctx.deps, 'sentver').resolve({ tenantId: tenantOf(ctx.identity), alias: alias ?? null, hierarchyOrder: ctx.identity.hierarchyOrder }));
  }

  @Authorized(SCOPES.speakerModelsRead)
  @Query(() => ModelAliasResolution)
  async speakerEmbeddingModelAliasResolution(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String, { nullable: true }) alias: string | null): Promise<ModelAliasResolution> {
    return toResolution(await new AliasResolution(ctx.deps, 'embedding').resolve({ tenantId: tenantOf(ctx.identity), alias: alias ?? null, hierarchyOrder: ctx.identity.hierarchyOrder }));
  }

  @Authorized(SCOPES.speechModelsRead)
  @Query(() => [ModelAliasOption], { description: 'Speech-recognition aliases the caller may name when starting a streaming session.' })
  async asrModelAliasOptions(@Ctx() ctx: SpeakerModelsContext): Promise<ModelAliasOption[]> {
    return options(ctx, 'asr');
  }

  @Authorized(SCOPES.speechModelsRead)
  @Query(() => ModelAliasResolution, { description: 'The speech-recognition model an alias (or the tenant default) resolves to now; GONE after its sunset.' })
  async asrModelAliasResolution(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String, { nullable: true }) alias: string | null): Promise<ModelAliasResolution> {
    return toResolution(await new AliasResolution(ctx.deps, 'asr').resolve({ tenantId: tenantOf(ctx.identity), alias: alias ?? null, hierarchyOrder: ctx.identity.hierarchyOrder }));
  }
}
