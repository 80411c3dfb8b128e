import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SpeakerModelsContext } from '../context';
import {
  AsrAliasInput, AsrAliasResolveInput, AsrModelAlias, AsrModelAliasPut, DeprecateAliasInput, SentverAliasInput, SentverAliasResolveInput, SentverModelAlias, SentverModelAliasPut, SpeakerEmbeddingAliasInput,
  SpeakerEmbeddingAliasResolveInput, SpeakerEmbeddingModelAlias, SpeakerEmbeddingModelAliasPut,
} from './alias.types';
import { AliasesService } from './aliases.service';
import { toAsrAlias, toEmbeddingAlias, toSentverAlias } from './mappers';

const sentver = (ctx: SpeakerModelsContext) => new AliasesService(ctx.deps, 'sentver');
const embedding = (ctx: SpeakerModelsContext) => new AliasesService(ctx.deps, 'embedding');
const asr = (ctx: SpeakerModelsContext) => new AliasesService(ctx.deps, 'asr');

@Resolver(() => SentverModelAlias)
export class SentverAliasResolver {
  @Authorized(SCOPES.sentverAliasesWrite)
  @Query(() => [SentverModelAlias], { description: 'All sentence-verification aliases of the tenant.' })
  async sentverModelAliases(@Ctx() ctx: SpeakerModelsContext): Promise<SentverModelAlias[]> {
    return (await sentver(ctx).list(ctx.identity)).map(toSentverAlias);
  }

  @Authorized(SCOPES.sentverAliasesWrite)
  @Mutation(() => SentverModelAliasPut, { description: 'Creates or updates the alias.' })
  async putSentverModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => SentverAliasInput) input: SentverAliasInput): Promise<SentverModelAliasPut> {
    const r = await sentver(ctx).upsert(ctx.identity, alias, input);
    return { alias: toSentverAlias(r.alias), created: r.created };
  }

  @Authorized(SCOPES.sentverAliasesWrite)
  @Mutation(() => SentverModelAlias, { description: 'Changes the primary and fallback model; existing records keep their lineage.' })
  async resolveSentverModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => SentverAliasResolveInput) input: SentverAliasResolveInput): Promise<SentverModelAlias> {
    return toSentverAlias(await sentver(ctx).resolve(ctx.identity, alias, input.resolvedModel, input.fallbackModel ?? null));
  }

  @Authorized(SCOPES.sentverAliasesWrite)
  @Mutation(() => SentverModelAlias)
  async deprecateSentverModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => DeprecateAliasInput) input: DeprecateAliasInput): Promise<SentverModelAlias> {
    return toSentverAlias(await sentver(ctx).deprecate(ctx.identity, alias, input));
  }

  @Authorized(SCOPES.sentverAliasesWrite)
  @Mutation(() => SentverModelAlias, { description: 'Clears the deprecated flag, dates and message.' })
  async undeprecateSentverModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string): Promise<SentverModelAlias> {
    return toSentverAlias(await sentver(ctx).undeprecate(ctx.identity, alias));
  }

  @Authorized(SCOPES.sentverAliasesDelete)
  @Mutation(() => Boolean, { description: 'Retained records stay reproducible: they store alias and resolved model.' })
  async deleteSentverModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string): Promise<boolean> {
    await sentver(ctx).remove(ctx.identity, alias);
    return true;
  }
}

@Resolver(() => SpeakerEmbeddingModelAlias)
export class SpeakerEmbeddingAliasResolver {
  @Authorized(SCOPES.embeddingAliasesWrite)
  @Query(() => [SpeakerEmbeddingModelAlias])
  async speakerEmbeddingModelAliases(@Ctx() ctx: SpeakerModelsContext): Promise<SpeakerEmbeddingModelAlias[]> {
    return (await embedding(ctx).list(ctx.identity)).map(toEmbeddingAlias);
  }

  @Authorized(SCOPES.embeddingAliasesWrite)
  @Mutation(() => SpeakerEmbeddingModelAliasPut, { description: 'Creates or updates; exactly one alias per tenant is the default.' })
  async putSpeakerEmbeddingModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => SpeakerEmbeddingAliasInput) input: SpeakerEmbeddingAliasInput): Promise<SpeakerEmbeddingModelAliasPut> {
    const r = await embedding(ctx).upsert(ctx.identity, alias, input);
    return { alias: toEmbeddingAlias(r.alias), created: r.created };
  }

  @Authorized(SCOPES.embeddingAliasesWrite)
  @Mutation(() => SpeakerEmbeddingModelAlias, { description: 'Changes the concrete model; existing voice prints keep their previous resolved model.' })
  async resolveSpeakerEmbeddingModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => SpeakerEmbeddingAliasResolveInput) input: SpeakerEmbeddingAliasResolveInput): Promise<SpeakerEmbeddingModelAlias> {
    return toEmbeddingAlias(await embedding(ctx).resolve(ctx.identity, alias, input.resolvedModel, null));
  }

  @Authorized(SCOPES.embeddingAliasesWrite)
  @Mutation(() => SpeakerEmbeddingModelAlias)
  async deprecateSpeakerEmbeddingModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => DeprecateAliasInput) input: DeprecateAliasInput): Promise<SpeakerEmbeddingModelAlias> {
    return toEmbeddingAlias(await embedding(ctx).deprecate(ctx.identity, alias, input));
  }

  @Authorized(SCOPES.embeddingAliasesWrite)
  @Mutation(() => SpeakerEmbeddingModelAlias)
  async undeprecateSpeakerEmbeddingModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string): Promise<SpeakerEmbeddingModelAlias> {
    return toEmbeddingAlias(await embedding(ctx).undeprecate(ctx.identity, alias));
  }

  @Authorized(SCOPES.embeddingAliasesDelete)
  @Mutation(() => Boolean, { description: 'Existing voice prints keep their requested alias and resolved model.' })
  async deleteSpeakerEmbeddingModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string): Promise<boolean> {
    await embedding(ctx).remove(ctx.identity, alias);
    return true;
  }
}

/** Speech-recognition aliases: the sentver rules, fallback included (the same AliasesService). */
@Resolver(() => AsrModelAlias)
export class AsrAliasResolver {
  @Authorized(SCOPES.asrAliasesWrite)
  @Query(() => [AsrModelAlias], { description: 'All speech-recognition aliases of the tenant.' })
  async asrModelAliases(@Ctx() ctx: SpeakerModelsContext): Promise<AsrModelAlias[]> {
    return (await asr(ctx).list(ctx.identity)).map(toAsrAlias);
  }

  @Authorized(SCOPES.asrAliasesWrite)
  @Mutation(() => AsrModelAliasPut, { description: 'Creates or updates the alias; exactly one alias per tenant is the default.' })
  async putAsrModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => AsrAliasInput) input: AsrAliasInput): Promise<AsrModelAliasPut> {
    const r = await asr(ctx).upsert(ctx.identity, alias, input);
    return { alias: toAsrAlias(r.alias), created: r.created };
  }

  @Authorized(SCOPES.asrAliasesWrite)
  @Mutation(() => AsrModelAlias, { description: 'Changes the primary and fallback model; existing sessions keep what they used.' })
  async resolveAsrModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => AsrAliasResolveInput) input: AsrAliasResolveInput): Promise<AsrModelAlias> {
    return toAsrAlias(await asr(ctx).resolve(ctx.identity, alias, input.resolvedModel, input.fallbackModel ?? null));
  }

  @Authorized(SCOPES.asrAliasesWrite)
  @Mutation(() => AsrModelAlias)
  async deprecateAsrModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string, @Arg('input', () => DeprecateAliasInput) input: DeprecateAliasInput): Promise<AsrModelAlias> {
    return toAsrAlias(await asr(ctx).deprecate(ctx.identity, alias, input));
  }

  @Authorized(SCOPES.asrAliasesWrite)
  @Mutation(() => AsrModelAlias, { description: 'Clears the deprecated flag, dates and message.' })
  async undeprecateAsrModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string): Promise<AsrModelAlias> {
    return toAsrAlias(await asr(ctx).undeprecate(ctx.identity, alias));
  }

  @Authorized(SCOPES.asrAliasesDelete)
  @Mutation(() => Boolean, { description: 'Sessions keep the alias and model names they recorded.' })
  async deleteAsrModelAlias(@Ctx() ctx: SpeakerModelsContext, @Arg('alias', () => String) alias: string): Promise<boolean> {
    await asr(ctx).remove(ctx.identity, alias);
    return true;
  }
}
