import type { AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse, EngineClient, EngineStream, EngineStreamingMethods, SpeechRecognitionMethods } from '@voxgate/kit/grpc';
import { engineClientConfig, type ModelRow } from '@voxgate/speaker-models';

type AsrClient = EngineClient<SpeechRecognitionMethods, EngineStreamingMethods['SpeechRecognition']>;
export type RecognitionStream = EngineStream<AsrStreamingRecognizeRequest, AsrStreamingRecognizeResponse>;

/**
 * Sessions per HTTP/2 connection to an engine. Every stream on a connection shares its flow-control
 * window, and grpc-js servers keep Node's 64 KiB default: with hundreds of real-time sessions on one
 * connection the audio stalled (benchmark: 245 stalls over 250 ms at 500 sessions, none once the
 * window was 16 MiB). Engines are not ours to configure, so the platform spreads sessions instead.
 */
export const SESSIONS_PER_CONNECTION = 64;

interface Connection {
  client: AsrClient;
  users: number;
}

interface ModelChannels {
  key: string;
  connections: Connection[];
}

/**
 * The gRPC connections of this process to each model's engine: a session is one HTTP/2 stream on
 * the least busy connection with room, and a new connection opens when all are full. A model whose
 * configuration changed (updatedAt) gets new connections; the old ones close when their last
 * session ends.
 */
export class EngineChannels {
  private readonly models = new Map<string, ModelChannels>();

  private keyOf(model: ModelRow): string {
    return `${model.id}@${model.updatedAt.getTime()}`;
  }

  async acquire(model: ModelRow): Promise<{ client: AsrClient; release(): void }> {
    const key = this.keyOf(model);
    let entry = this.models.get(model.id);
    if (entry && entry.key !== key) {
      for (const c of entry.connections) if (c.users === 0) c.client.close();
      this.models.delete(model.id);
      entry = undefined;
    }
    if (!entry) {
      entry = { key, connections: [] };
      this.models.set(model.id, entry);
    }
    const owner = entry;
    let conn = owner.connections.filter((c) => c.users < SESSIONS_PER_CONNECTION).sort((a, b) => a.users - b.users)[0];
    if (!conn) {
      const { createEngineClient } = await import('@voxgate/kit/grpc');
      // a local subchannel pool: grpc-js would otherwise share one connection between all channels to a target
      const client: AsrClient = createEngineClient('SpeechRecognition', engineClientConfig(model), undefined, {
        channelOptions: { 'grpc.use_local_subchannel_pool': 1 },
      });
      conn = { client, users: 0 };
      owner.connections.push(conn);
    }
    const c = conn;
    c.users++;
    let released = false;
    return {
      client: c.client,
      release: () => {
        if (released) return;
        released = true;
        c.users--;
        const current = this.models.get(model.id) === owner;
        // idle extra connections close; one stays open per current model for the next session
        if (c.users === 0 && (!current || owner.connections.length > 1)) {
          c.client.close();
          owner.connections.splice(owner.connections.indexOf(c), 1);
        }
      },
    };
  }

  close(): void {
    for (const m of this.models.values()) for (const c of m.connections) c.client.close();
    this.models.clear();
  }
}
