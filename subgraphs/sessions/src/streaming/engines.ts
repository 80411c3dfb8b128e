import type { AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse, EngineClient, EngineStream, EngineStreamingMethods, SpeechRecognitionMethods } from '@voxgate/kit/grpc';
import { engineClientConfig, type ModelRow } from '@voxgate/speaker-models';

type AsrClient = EngineClient<SpeechRecognitionMethods, EngineStreamingMethods['SpeechRecognition']>;
export type RecognitionStream = EngineStream<AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse>;

/**
 * One gRPC channel per model configuration, shared by every session of this process: a session is
 * one HTTP/2 stream on it, so hundreds of sessions cost one connection. A model whose configuration
 * changed (updatedAt) gets a new channel; the old one is closed when the last session using it ends.
 */
export class EngineChannels {
  private readonly clients = new Map<string, { key: string; client: AsrClient; users: number; stale: boolean }>();

  private keyOf(model: ModelRow): string {
    return `${model.id}@${model.updatedAt.getTime()}`;
  }

  async acquire(model: ModelRow): Promise<{ client: AsrClient; release(): void }> {
    const key = this.keyOf(model);
    let entry = this.clients.get(model.id);
    if (entry && entry.key !== key) {
      entry.stale = true;
      if (entry.users === 0) entry.client.close();
      this.clients.delete(model.id);
      entry = undefined;
    }
    if (!entry) {
      const { createEngineClient } = await import('@voxgate/kit/grpc');
      const client: AsrClient = createEngineClient('SpeechRecognition', engineClientConfig(model));
      entry = { key, client, users: 0, stale: false };
      this.clients.set(model.id, entry);
    }
    const e = entry;
    e.users++;
    let released = false;
    return {
      client: e.client,
      release: () => {
        if (released) return;
        released = true;
        e.users--;
        if (e.stale && e.users === 0) e.client.close();
      },
    };
  }

  close(): void {
    for (const e of this.clients.values()) e.client.close();
    this.clients.clear();
  }
}
