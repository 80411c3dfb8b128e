import { appError, type StreamingSessionEvent } from '@voxgate/kit';
import type { ChannelHub } from './channels';

/**
 * How far a subscriber may fall behind. Past SOFT_LIMIT queued events the oldest PARTIAL results are
 * dropped: each one only restates the utterance in progress and a later PARTIAL or the SEGMENT
 * supersedes it. SEGMENT, STARTED and ENDED are never dropped (a client could not tell what it
 * missed); if those alone pile up past HARD_LIMIT the client is hopelessly slow and the subscription
 * ends with an error instead of holding memory without bound.
 */
export const SOFT_LIMIT = 200;
export const HARD_LIMIT = 5_000;

export interface EventStreamOptions {
  /** events the subscriber may see (tenant, user, type); the rest are ignored */
  accept(event: StreamingSessionEvent): boolean;
  /** a session stream ends with its ENDED event; lifecycle streams never end on their own */
  completeOnEnded: boolean;
  softLimit?: number;
  hardLimit?: number;
}

/**
 * One subscription's events, as the async iterator graphql-js `subscribe` consumes. Redis pushes
 * events in at its own pace; the client pulls them as fast as its socket drains (graphql-ws awaits
 * each send), and the bounded queue sits in between.
 */
export class EventStream implements AsyncIterableIterator<StreamingSessionEvent> {
  private readonly queue: StreamingSessionEvent[] = [];
  private partials = 0;
  private waiter: { resolve(r: IteratorResult<StreamingSessionEvent>): void; reject(e: unknown): void } | null = null;
  /** no more events will be queued (ENDED seen, returned, or failed); what is queued is still delivered */
  private sealed = false;
  private failure: Error | null = null;
  private unlisten: (() => void) | null = null;
  private readonly softLimit: number;
  private readonly hardLimit: number;

  constructor(private readonly opts: EventStreamOptions) {
    this.softLimit = opts.softLimit ?? SOFT_LIMIT;
    this.hardLimit = opts.hardLimit ?? HARD_LIMIT;
  }

  /** Starts listening; resolves once Redis delivers the channel (see ChannelHub.listen). */
  async listen(hub: ChannelHub, channel: string): Promise<void> {
    const unlisten = await hub.listen(channel, (e) => this.push(e));
    if (this.sealed) unlisten(); // returned while the SUBSCRIBE was in flight
    else this.unlisten = unlisten;
  }

  /** Queues one event from the channel (public so the queue rules can be tested without Redis). */
  push(event: StreamingSessionEvent): void {
    if (this.sealed || !this.opts.accept(event)) return;
    const ends = this.opts.completeOnEnded && event.type === 'ENDED';
    if (ends) this.seal();
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve({ value: event, done: false });
      return;
    }
    this.queue.push(event);
    if (event.type === 'PARTIAL') this.partials++;
    if (this.queue.length > this.softLimit && this.partials > 0) this.dropOldestPartial();
    if (this.queue.length > this.hardLimit) {
      this.fail(appError('UNAVAILABLE', `The subscriber fell more than ${this.hardLimit} events behind; subscribe again and read what was missed through the API`));
    }
  }

  private dropOldestPartial(): void {
    const i = this.queue.findIndex((e) => e.type === 'PARTIAL');
    if (i < 0) return;
    this.queue.splice(i, 1);
    this.partials--;
  }

  private seal(): void {
    this.sealed = true;
    this.unlisten?.();
    this.unlisten = null;
  }

  private fail(error: Error): void {
    this.seal();
    this.queue.length = 0;
    this.partials = 0;
    this.failure = error;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.reject(error);
    }
  }

  next(): Promise<IteratorResult<StreamingSessionEvent>> {
    const event = this.queue.shift();
    if (event) {
      if (event.type === 'PARTIAL') this.partials--;
      return Promise.resolve({ value: event, done: false });
    }
    if (this.failure) {
      const f = this.failure;
      this.failure = null;
      return Promise.reject(f);
    }
    if (this.sealed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => { this.waiter = { resolve, reject }; });
  }

  /** The client completed, the socket closed, or the stream ended: stop listening and drop the queue. */
  return(): Promise<IteratorResult<StreamingSessionEvent>> {
    this.seal();
    this.queue.length = 0;
    this.partials = 0;
    this.failure = null;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve({ value: undefined, done: true });
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<StreamingSessionEvent>> {
    void this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** A stream of exactly these events, then the end (a late subscriber to a session that already ended). */
export function fixedStream(events: StreamingSessionEvent[]): AsyncIterableIterator<StreamingSessionEvent> {
  return (async function* () { yield* events; })();
}
