import type { Redis } from 'ioredis';

/**
 * Events that leave a domain after its change is committed, for the edge's GraphQL subscriptions.
 * They travel over Redis pub/sub, so an event produced behind one edge process reaches subscribers
 * on every other. Pub/sub is fire-and-forget: a subscriber that is not connected misses events and
 * reads the record through the API instead; the events carry no secrets, but subscribers still
 * re-check the tenant and scopes of whoever listens.
 */

export type StreamingSessionState = 'CREATED' | 'ACTIVE' | 'FINISHED' | 'CANCELLED' | 'FAILED';

export interface StreamingWordEvent {
  word: string;
  startSeconds: number;
  endSeconds: number;
  confidence: number | null;
  speakerTag: number | null;
}

export interface StreamingSegmentEvent {
  id: string;
  segmentIndex: number;
  transcript: string;
  confidence: number | null;
  words: StreamingWordEvent[] | null;
  startSeconds: number;
  endSeconds: number;
  createdAt: string;
}

interface EventBase {
  sessionId: string;
  tenantId: string;
  userId: string;
  /** ISO 8601 time the event was produced */
  at: string;
}

export type StreamingSessionEvent =
  | (EventBase & { type: 'STARTED'; state: StreamingSessionState })
  | (EventBase & { type: 'PARTIAL'; partial: { transcript: string; startSeconds: number } })
  | (EventBase & { type: 'SEGMENT'; segment: StreamingSegmentEvent })
  | (EventBase & { type: 'ENDED'; state: StreamingSessionState; failureReason: string | null });

/** Every event of one session. */
export const sessionChannel = (sessionId: string): string => `vxg:ev:session:${sessionId}`;
/** STARTED and ENDED of every session of a tenant (dashboards). */
export const tenantSessionsChannel = (tenantId: string): string => `vxg:ev:tenant:${tenantId}:sessions`;

export class StreamingSessionEvents {
  constructor(private readonly redis: Redis) {}

  /** Publishes after the change is committed; lifecycle events also go to the tenant channel. */
  async publish(event: StreamingSessionEvent): Promise<void> {
    const json = JSON.stringify(event);
    const sends = [this.redis.publish(sessionChannel(event.sessionId), json)];
    if (event.type === 'STARTED' || event.type === 'ENDED') sends.push(this.redis.publish(tenantSessionsChannel(event.tenantId), json));
    await Promise.all(sends);
  }
}
