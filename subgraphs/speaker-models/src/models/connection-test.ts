import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { SpeakerModelsContext } from '../context';
import type { ModelRow } from '../db/schema';
import { ModelConnectionTest } from '../resolution/discovery.types';
import { engineClientConfig } from './engine-config';
import { ModelsService } from './models.service';

/** Dials the model's engine with its own gRPC configuration and calls Health. */
async function testConnection(model: ModelRow, service: 'SentenceVerification' | 'SpeakerEmbedding' | 'SpeechRecognition'): Promise<ModelConnectionTest> {
  let client: { close(): void } | null = null;
  const started = performance.now();
  try {
    const { createEngineClient } = await import('@voxgate/kit/grpc');
    const engine = createEngineClient(service, engineClientConfig(model));
    client = engine;
    const health = await engine.call('Health', {});
    const status = String(health.status);
    return { success: status === 'SERVING', status, message: health.message || null, latencyMs: Math.round(performance.now() - started) };
  } catch (e) {
    return { success: false, status: null, message: (e as Error).message, latencyMs: null };
  } finally {
    client?.close();
  }
}

@Resolver()
export class ConnectionTestResolver {
  @Authorized(SCOPES.sentverModelsWrite)
  @Mutation(() => ModelConnectionTest, { description: "Calls the engine's Health method with the model's gRPC configuration." })
  async testSentverModelConnection(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string): Promise<ModelConnectionTest> {
    return testConnection(await new ModelsService(ctx.deps, 'sentver').get(ctx.identity, name), 'SentenceVerification');
  }

  @Authorized(SCOPES.embeddingModelsWrite)
  @Mutation(() => ModelConnectionTest)
  async testSpeakerEmbeddingModelConnection(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string): Promise<ModelConnectionTest> {
    return testConnection(await new ModelsService(ctx.deps, 'embedding').get(ctx.identity, name), 'SpeakerEmbedding');
  }

  @Authorized(SCOPES.asrModelsWrite)
  @Mutation(() => ModelConnectionTest, { description: "Calls the speech-recognition engine's Health method with the model's gRPC configuration." })
  async testAsrModelConnection(@Ctx() ctx: SpeakerModelsContext, @Arg('name', () => String) name: string): Promise<ModelConnectionTest> {
    return testConnection(await new ModelsService(ctx.deps, 'asr').get(ctx.identity, name), 'SpeechRecognition');
  }
}
