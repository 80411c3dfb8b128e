import { randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { TokenBucket, throttleStream } from '../../src/limits';

// Timers may fire a little early and clocks are coarse; only lower bounds are asserted, with slack.
const TOLERANCE_MS = 100;

describe('TokenBucket', () => {
  it('takes at least ~2 s to hand out 3 × rate tokens when burst = rate', async () => {
    const rate = 1000;
    const bucket = new TokenBucket(rate);
    const start = performance.now();
    await bucket.take(3 * rate);
    expect(performance.now() - start).toBeGreaterThanOrEqual(2000 - TOLERANCE_MS);
  });

  it('tryTake succeeds only while tokens are there, without waiting', () => {
    const bucket = new TokenBucket(10, 5);
    expect(bucket.tryTake(5)).toBe(true);
    expect(bucket.tryTake(1)).toBe(false);
    expect(bucket.tryTake(0)).toBe(true);
  });

  it('serves concurrent takers in order and at the configured rate', async () => {
    const bucket = new TokenBucket(100, 100);
    const start = performance.now();
    const finished: number[] = [];
    await Promise.all([150, 10, 40].map((n, i) => bucket.take(n).then(() => finished.push(i))));
    expect(finished).toEqual([0, 1, 2]);
    // 200 tokens, 100 up front, 100 more at 100/s.
    expect(performance.now() - start).toBeGreaterThanOrEqual(1000 - TOLERANCE_MS);
  });

  it('rejects nonsensical rates and counts', () => {
    expect(() => new TokenBucket(0)).toThrow(RangeError);
    expect(() => new TokenBucket(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => new TokenBucket(10).tryTake(-1)).toThrow(RangeError);
  });
});

describe('throttleStream', () => {
  it('delivers every byte in order, no faster than the rate allows', async () => {
    const input = randomBytes(40_000);
    const sizes = [1, 777, 5000, 16_384, 3, 9000];
    const chunks: Buffer[] = [];
    for (let offset = 0, i = 0; offset < input.length; i++) {
      const size = sizes[i % sizes.length]!;
      chunks.push(input.subarray(offset, offset + size));
      offset += size;
    }
    const received: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback): void {
        received.push(chunk);
        callback();
      },
    });
    const start = performance.now();
    await pipeline(Readable.from(chunks), throttleStream(20_000, 10_000), sink);
    const elapsed = performance.now() - start;
    expect(Buffer.concat(received).equals(input)).toBe(true);
    // 10 000 bytes of burst up front, the remaining 30 000 at 20 000 B/s.
    expect(elapsed).toBeGreaterThanOrEqual(1500 - TOLERANCE_MS);
    expect(Math.max(...received.map((c) => c.length))).toBeLessThanOrEqual(10_000);
  });
});
