import { Redis, type Logger, type StreamingSessionEvent } from '@voxgate/kit';

export type EventListener = (event: StreamingSessionEvent) => void;

interface Channel {
  listeners: Set<EventListener>;
  /** settles when Redis has confirmed the SUBSCRIBE; later listeners of the channel wait on the same promise */
  ready: Promise<void>;
}

/**
 * The edge process's one Redis subscriber connection, shared by every GraphQL subscription.
 *
 * A connection in subscriber mode can run nothing but (P)(UN)SUBSCRIBE, so it is separate from the
 * platform's command connection; one per process (not per subscription) keeps Redis's client count
 * independent of how many browsers are listening. Channels are reference-counted: the first listener
 * subscribes, the last one to leave unsubscribes. Both commands travel in order on this single
 * connection, so an UNSUBSCRIBE still in flight cannot overtake a later SUBSCRIBE of the same channel.
 */
export class ChannelHub {
  private subscriber: Redis | null = null;
  private readonly channels = new Map<string, Channel>();
  private closed = false;

  constructor(private readonly redisUrl: string, private readonly log: Logger) {}

  /** Created on the first subscription: an edge nobody subscribes to holds no extra connection. */
  private connection(): Redis {
    if (this.subscriber) return this.subscriber;
    // maxRetriesPerRequest bounds how long a subscribe waits while Redis is unreachable (the caller
    // gets UNAVAILABLE instead of hanging); ioredis re-subscribes every channel after a reconnect
    // no ready check: it sends INFO once connected, and SUBSCRIBEs queued before that have already
    // put the connection in subscriber mode, where INFO (and so every queued subscribe) fails
    const r = new Redis(this.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false, enableReadyCheck: false });
    r.on('error', (err: unknown) => this.log.warn({ err }, 'subscription event bus: redis error'));
    r.on('message', (channel: string, message: string) => this.dispatch(channel, message));
    this.subscriber = r;
    return r;
  }

  private dispatch(channel: string, message: string): void {
    const entry = this.channels.get(channel);
    if (!entry || entry.listeners.size === 0) return; // unsubscribed meanwhile
    let event: StreamingSessionEvent;
    try {
      // parsed once per message, whatever the number of listeners; listeners never mutate it
      event = JSON.parse(message) as StreamingSessionEvent;
    } catch {
      this.log.warn({ channel }, 'subscription event bus: message is not JSON, dropped');
      return;
    }
    if (!event || typeof event !== 'object' || typeof event.type !== 'string') return;
    for (const listener of [...entry.listeners]) {
      try { listener(event); } catch (err) { this.log.error({ err, channel }, 'subscription listener failed'); }
    }
  }

  /**
   * Adds a listener; resolves once Redis delivers the channel's messages, so an event published
   * after this resolves is not missed. Returns the function that removes the listener.
   */
  async listen(channel: string, listener: EventListener): Promise<() => void> {
    if (this.closed) throw new Error('the event bus is closed');
    let entry = this.channels.get(channel);
    if (!entry) {
      const ready = this.connection().subscribe(channel).then(() => undefined);
      ready.catch(() => { /* reported to every waiting listener below */ });
      entry = { listeners: new Set(), ready };
      this.channels.set(channel, entry);
    }
    const e = entry;
    e.listeners.add(listener);
    const remove = () => this.remove(channel, e, listener);
    try {
      await e.ready;
    } catch (err) {
      remove();
      throw err;
    }
    return remove;
  }

  private remove(channel: string, entry: Channel, listener: EventListener): void {
    if (!entry.listeners.delete(listener)) return;
    if (entry.listeners.size > 0 || this.channels.get(channel) !== entry) return;
    this.channels.delete(channel);
    if (this.closed || !this.subscriber) return;
    this.subscriber.unsubscribe(channel).catch((err: unknown) => this.log.warn({ err, channel }, 'unsubscribe failed'));
  }

  /** Channels with at least one listener (tests and diagnostics). */
  get channelCount(): number {
    return this.channels.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
    const r = this.subscriber;
    this.subscriber = null;
    if (!r) return;
    await r.quit().catch(() => r.disconnect());
  }
}
