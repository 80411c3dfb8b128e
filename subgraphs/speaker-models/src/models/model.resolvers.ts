import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SpeakerModelsContext } from '../context';
import { AsrModelStatus, SpeakerEmbeddingModelStatus } from '../shared/graphql-types';
import { asrConfig, embeddingConfig, sentverConfig, toAsrModel, toEmbeddingModel, toSentverModel } from './mappers';
import {
  AsrModel, AsrModelInput, SentverModel, SentverModelInput, SpeakerEmbeddingModel, SpeakerEmbeddingModelInput, UpdateSentverModelInput, UpdateSentverModelStatusInput,
  UpdateAsrModelInput, UpdateAsrModelStatusInput, UpdateSpeakerEmbeddingModelInput, UpdateSpeakerEmbeddingModelStatusInput,
} from './model.types';
import { ModelsService } from './models.service';

const sentver = (ctx: SpeakerModelsContext) => new ModelsService(ctx.deps, 'sentver');
const embedding = (ctx: SpeakerModelsContext) => new ModelsService(ctx.deps, 'embedding');
const asr = (ctx: SpeakerModelsContext) => new ModelsService(ctx.deps, 'asr');

async function withCounts<T>(svc: ModelsService, rows: Awaited<ReturnType<ModelsService['list']>>, map: (r: (typeof rows)[number], c: Awaited<ReturnType<ModelsService['retainedCounts']>> extends Map<string, infer V> ? V : never) => T): Promise<T[]> {
  const counts = await svc.retainedCounts(rows.map((r) => r.id));
  return rows.map((r) => map(r, counts.get(r.id) ?? { voicePrints: 0, enrollments: 0, verifications: 0, activeVoicePrints: 0, defaultSpeakers: 0 }));
}

@Resolver(() => SentverModel)
export class SentverModelResolver {
  @Authorized(SCOPES.sentverModelsWrite)
  @Query(() => [SentverModel], { description: 'Concrete sentence-verification models of the tenant.' })
  async sentverModels(@Ctx() ctx: SpeakerModelsContext): Promise<SentverModel[]> {
    const svc = sentver(ctx);
    return withCounts(svc, await svc.list(ctx.identity), toSentverModel);
  }

  @Authorized(SCOPES.sentverModelsWrite)
  @Mutation(() => SentverModel, { description: 'Registers a model; it starts INACTIVE.' })
  async registerSentverModel(@Ctx() ctx: SpeakerModelsContext, @Arg('input', () => SentverModelInput) input: SentverModelInput): Promise<SentverModel> {
    return toSentverModel(await sentver(ctx).register(ctx.identity, input.name, 'INACTIVE', sentverConfig(input), true));
  }

  @Authorized(SCOPES.sentverModelsWrite)
  @Mutation(() => SentverModel, { description: 'Replaces the editable configuration; never changes what an alias resolves to.' })
  async updateSentverModel(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string, @Arg('input', () => UpdateSentverModelInput) input: UpdateSentverModelInput): Promise<SentverModel> {
    const svc = sentver(ctx);
    const [row] = await withCounts(svc, [await svc.replace(ctx.identity, name, sentverConfig(input), true)], toSentverModel);
    return row as SentverModel;
  }

  @Authorized(SCOPES.sentverModelsWrite)
  @Mutation(() => SentverModel)
  async updateSentverModelStatus(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string, @Arg('input', () => UpdateSentverModelStatusInput) input: UpdateSentverModelStatusInput): Promise<SentverModel> {
    const svc = sentver(ctx);
    const [row] = await withCounts(svc, [await svc.setStatus(ctx.identity, name, input.status, input.statusMessage ?? null)], toSentverModel);
    return row as SentverModel;
  }

  @Authorized(SCOPES.sentverModelsDelete)
  @Mutation(() => Boolean, { description: 'Refused (CONFLICT) while an alias or a retained enrollment or verification references the model.' })
  async deleteSentverModel(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string): Promise<boolean> {
    await sentver(ctx).remove(ctx.identity, name);
    return true;
  }
}

@Resolver(() => SpeakerEmbeddingModel)
export class SpeakerEmbeddingModelResolver {
  @Authorized(SCOPES.embeddingModelsWrite)
  @Query(() => [SpeakerEmbeddingModel])
  async speakerEmbeddingModels(@Ctx() ctx: SpeakerModelsContext): Promise<SpeakerEmbeddingModel[]> {
    const svc = embedding(ctx);
    return withCounts(svc, await svc.list(ctx.identity), toEmbeddingModel);
  }

  @Authorized(SCOPES.embeddingModelsWrite)
  @Mutation(() => SpeakerEmbeddingModel, { description: 'Registers a model, with an optional initial status (default AVAILABLE).' })
  async registerSpeakerEmbeddingModel(@Ctx() ctx: SpeakerModelsContext, @Arg('input', () => SpeakerEmbeddingModelInput) input: SpeakerEmbeddingModelInput): Promise<SpeakerEmbeddingModel> {
    const status = input.status ?? SpeakerEmbeddingModelStatus.AVAILABLE;
    return toEmbeddingModel(await embedding(ctx).register(ctx.identity, input.name, status, embeddingConfig(input), false));
  }

  @Authorized(SCOPES.embeddingModelsWrite)
  @Mutation(() => SpeakerEmbeddingModel, { description: 'Replaces the editable configuration; does not rebuild voice prints.' })
  async updateSpeakerEmbeddingModel(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string, @Arg('input', () => UpdateSpeakerEmbeddingModelInput) input: UpdateSpeakerEmbeddingModelInput): Promise<SpeakerEmbeddingModel> {
    const svc = embedding(ctx);
    const [row] = await withCounts(svc, [await svc.replace(ctx.identity, name, embeddingConfig(input), false)], toEmbeddingModel);
    return row as SpeakerEmbeddingModel;
  }

  @Authorized(SCOPES.embeddingModelsWrite)
  @Mutation(() => SpeakerEmbeddingModel, { description: 'INACTIVE records inactiveAt, which starts retention of the voice prints it produced.' })
  async updateSpeakerEmbeddingModelStatus(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string, @Arg('input', () => UpdateSpeakerEmbeddingModelStatusInput) input: UpdateSpeakerEmbeddingModelStatusInput): Promise<SpeakerEmbeddingModel> {
    const svc = embedding(ctx);
    const [row] = await withCounts(svc, [await svc.setStatus(ctx.identity, name, input.status, input.statusMessage ?? null)], toEmbeddingModel);
    return row as SpeakerEmbeddingModel;
  }

  @Authorized(SCOPES.embeddingModelsDelete)
  @Mutation(() => Boolean, { description: 'Refused (CONFLICT) while an alias or a retained voice print references the model.' })
  async deleteSpeakerEmbeddingModel(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string): Promise<boolean> {
    await embedding(ctx).remove(ctx.identity, name);
    return true;
  }
}

/**
 * Speech-recognition models. No retained-record counts: streaming sessions copy the resolved
 * model's name, so only an alias keeps a model from deletion.
 */
@Resolver(() => AsrModel)
export class AsrModelResolver {
  @Authorized(SCOPES.asrModelsWrite)
  @Query(() => [AsrModel], { description: 'Concrete speech-recognition models of the tenant.' })
  async asrModels(@Ctx() ctx: SpeakerModelsContext): Promise<AsrModel[]> {
    return (await asr(ctx).list(ctx.identity)).map(toAsrModel);
  }

  @Authorized(SCOPES.asrModelsWrite)
  @Mutation(() => AsrModel, { description: 'Registers a model, with an optional initial status (default AVAILABLE).' })
  async registerAsrModel(@Ctx() ctx: SpeakerModelsContext, @Arg('input', () => AsrModelInput) input: AsrModelInput): Promise<AsrModel> {
    return toAsrModel(await asr(ctx).register(ctx.identity, input.name, input.status ?? AsrModelStatus.AVAILABLE, asrConfig(input), true));
  }

  @Authorized(SCOPES.asrModelsWrite)
  @Mutation(() => AsrModel, { description: 'Replaces the editable configuration; never changes what an alias resolves to.' })
  async updateAsrModel(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string, @Arg('input', () => UpdateAsrModelInput) input: UpdateAsrModelInput): Promise<AsrModel> {
    return toAsrModel(await asr(ctx).replace(ctx.identity, name, asrConfig(input), true));
  }

  @Authorized(SCOPES.asrModelsWrite)
  @Mutation(() => AsrModel, { description: 'MAINTENANCE and INACTIVE hand sessions over to an alias\'s fallback.' })
  async updateAsrModelStatus(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string, @Arg('input', () => UpdateAsrModelStatusInput) input: UpdateAsrModelStatusInput): Promise<AsrModel> {
    return toAsrModel(await asr(ctx).setStatus(ctx.identity, name, input.status, input.statusMessage ?? null));
  }

  @Authorized(SCOPES.asrModelsDelete)
  @Mutation(() => Boolean, { description: 'Refused (CONFLICT) while an alias references the model (as primary or fallback).' })
  async deleteAsrModel(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string): Promise<boolean> {
    await asr(ctx).remove(ctx.identity, name);
    return true;
  }
}
