import { Transform, type TransformCallback } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * In-process token bucket (one stream or connection; it is deliberately not shared through Redis,
 * a per-byte round trip would cost more than the throttling saves).
 *
 * Waiters are served strictly in arrival order: without the queue a steady stream of small takes
 * could starve a large one forever, since the bucket would never fill up to its size.
 */
export class TokenBucket {
  private readonly rate: number;
  private readonly burst: number;
  private tokens: number;
  private last: number;
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(ratePerSecond: number, burst: number = ratePerSecond) {
    if (!Number.isFinite(ratePerSecond) || ratePerSecond <= 0) throw new RangeError(`token rate must be a positive finite number, got ${ratePerSecond}`);
    if (!Number.isFinite(burst) || burst <= 0) throw new RangeError(`token burst must be a positive finite number, got ${burst}`);
    this.rate = ratePerSecond;
    this.burst = burst;
    this.tokens = burst;
    this.last = performance.now();
  }

  /** Waits until n tokens are available, then takes them. n larger than burst is taken in burst-sized parts. */
  take(n: number): Promise<void> {
    // Reported through the promise so callers only need one error path.
    try {
      validCount(n);
    } catch (err) {
      return Promise.reject(err);
    }
    if (n === 0) return Promise.resolve();
    this.waiting++;
    const turn = this.queue.then(() => this.takeInParts(n));
    const done = turn.finally(() => {
      this.waiting--;
    });
    // The queue itself must never reject, or one failure would poison every later take.
    this.queue = done.catch(() => undefined);
    return done;
  }

  /** Takes n tokens if available now; returns false otherwise (no wait). */
  tryTake(n: number): boolean {
    validCount(n);
    // Queued takers were first; jumping the queue would delay them past what they were promised.
    if (this.waiting > 0) return false;
    this.refill();
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }

  private async takeInParts(n: number): Promise<void> {
    let left = n;
    while (left > 0) {
      const part = Math.min(left, this.burst);
      await this.takeOne(part);
      left -= part;
    }
  }

  private async takeOne(part: number): Promise<void> {
    for (;;) {
      this.refill();
      if (this.tokens >= part) {
        this.tokens -= part;
        return;
      }
      // Timers can fire a millisecond early; the loop re-checks rather than trusting the sleep.
      await sleep(Math.max(1, Math.ceil(((part - this.tokens) / this.rate) * 1000)));
    }
  }

  private refill(): void {
    const now = performance.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }
}

function validCount(n: number): void {
  if (!Number.isFinite(n) || n < 0) throw new RangeError(`token count must be a non-negative finite number, got ${n}`);
}

// Caps a single release so a large burst does not arrive as one lump once per second.
const MAX_PART_BYTES = 16 * 1024;

/** A Transform stream that passes bytes through at most bytesPerSecond (chunks are split as needed). */
export function throttleStream(bytesPerSecond: number, burst?: number): Transform {
  const effectiveBurst = burst ?? bytesPerSecond;
  // Bytes are indivisible: a bucket that can never hold one whole byte would stall forever.
  if (!(effectiveBurst >= 1)) throw new RangeError(`throttleStream burst must be >= 1 byte, got ${effectiveBurst}`);
  const bucket = new TokenBucket(bytesPerSecond, effectiveBurst);
  const partBytes = Math.max(1, Math.min(MAX_PART_BYTES, Math.floor(effectiveBurst)));

  return new Transform({
    transform(this: Transform, chunk: unknown, encoding: BufferEncoding, callback: TransformCallback): void {
      const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), encoding);
      const pump = async (): Promise<void> => {
        for (let offset = 0; offset < buf.length && !this.destroyed; offset += partBytes) {
          const slice = buf.subarray(offset, offset + partBytes);
          await bucket.take(slice.length);
          this.push(slice);
        }
      };
      pump().then(() => callback(), (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))));
    },
  });
}
