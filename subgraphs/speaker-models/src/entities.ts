import { SCOPES, forbidden } from '@voxgate/kit';
import { Authorized, Ctx, Directive, Field, FieldResolver, ID, ObjectType, Resolver, Root } from 'type-graphql';
import { AsrModelAlias, SentverModelAlias, SpeakerEmbeddingModelAlias } from './aliases/alias.types';
import { AliasesService } from './aliases/aliases.service';
import { toAsrAlias, toEmbeddingAlias, toSentverAlias } from './aliases/mappers';
import type { SpeakerModelsContext } from './context';
import { models } from './db/schema';
import { toAsrModel, toEmbeddingModel, toSentverModel } from './models/mappers';
import { AsrModel, SentverModel, SpeakerEmbeddingModel } from './models/model.types';
import { ModelsService } from './models/models.service';
import { and, asc, eq } from 'drizzle-orm';
import { ensureFamilySeeded } from './seeding';

@Directive('@key(fields: "id")')
@ObjectType('Tenant')
export class SpeakerModelsTenant {
  @Field(() => ID) id!: string;
}

function checkTenant(ctx: SpeakerModelsContext, tenantId: string): void {
  if (!(ctx.identity.tenantName === 'system' || ctx.identity.tenantId === tenantId)) throw forbidden();
}

async function familyModels(ctx: SpeakerModelsContext, tenantId: string, family: 'sentver' | 'embedding' | 'asr') {
  await ensureFamilySeeded(ctx.deps, tenantId, family);
  const rows = await ctx.deps.db.select().from(models).where(and(eq(models.tenantId, tenantId), eq(models.family, family))).orderBy(asc(models.name));
  // ASR models have no retained records (sessions keep the model's name only)
  const counts = family === 'asr' ? new Map<string, never>() : await new ModelsService(ctx.deps, family).retainedCounts(rows.map((r) => r.id));
  return rows.map((r) => ({ row: r, counts: counts.get(r.id) }));
}

/** Admin consoles read a tenant's models and aliases (with their model objects) in one query. */
@Resolver(() => SpeakerModelsTenant)
export class SpeakerModelsTenantResolver {
  @Authorized(SCOPES.sentverModelsWrite)
  @FieldResolver(() => [SentverModel])
  async sentverModels(@Root() t: SpeakerModelsTenant, @Ctx() ctx: SpeakerModelsContext): Promise<SentverModel[]> {
    checkTenant(ctx, t.id);
    return (await familyModels(ctx, t.id, 'sentver')).map((m) => toSentverModel(m.row, m.counts));
  }

  @Authorized(SCOPES.embeddingModelsWrite)
  @FieldResolver(() => [SpeakerEmbeddingModel])
  async speakerEmbeddingModels(@Root() t: SpeakerModelsTenant, @Ctx() ctx: SpeakerModelsContext): Promise<SpeakerEmbeddingModel[]> {
    checkTenant(ctx, t.id);
    return (await familyModels(ctx, t.id, 'embedding')).map((m) => toEmbeddingModel(m.row, m.counts));
  }

  @Authorized(SCOPES.sentverAliasesWrite)
  @FieldResolver(() => [SentverModelAlias])
  async sentverModelAliases(@Root() t: SpeakerModelsTenant, @Ctx() ctx: SpeakerModelsContext): Promise<SentverModelAlias[]> {
    checkTenant(ctx, t.id);
    return (await new AliasesService(ctx.deps, 'sentver').listOf(t.id)).map(toSentverAlias);
  }

  @Authorized(SCOPES.embeddingAliasesWrite)
  @FieldResolver(() => [SpeakerEmbeddingModelAlias])
  async speakerEmbeddingModelAliases(@Root() t: SpeakerModelsTenant, @Ctx() ctx: SpeakerModelsContext): Promise<SpeakerEmbeddingModelAlias[]> {
    checkTenant(ctx, t.id);
    return (await new AliasesService(ctx.deps, 'embedding').listOf(t.id)).map(toEmbeddingAlias);
  }

  @Authorized(SCOPES.asrModelsWrite)
  @FieldResolver(() => [AsrModel])
  async asrModels(@Root() t: SpeakerModelsTenant, @Ctx() ctx: SpeakerModelsContext): Promise<AsrModel[]> {
    checkTenant(ctx, t.id);
    return (await familyModels(ctx, t.id, 'asr')).map((m) => toAsrModel(m.row));
  }

  @Authorized(SCOPES.asrAliasesWrite)
  @FieldResolver(() => [AsrModelAlias])
  async asrModelAliases(@Root() t: SpeakerModelsTenant, @Ctx() ctx: SpeakerModelsContext): Promise<AsrModelAlias[]> {
    checkTenant(ctx, t.id);
    return (await new AliasesService(ctx.deps, 'asr').listOf(t.id)).map(toAsrAlias);
  }
}
