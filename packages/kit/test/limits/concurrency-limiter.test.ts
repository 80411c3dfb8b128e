import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { ConcurrencyLimiter, type Lease } from '../../src/limits';
import { redisPool, uniquePrefix } from './helpers';

const pool = redisPool();
const children: ChildProcess[] = [];
const leases: Lease[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(leases.map((l) => l.release().catch(() => undefined)));
  await pool.closeAll();
});

function track(lease: Lease | null): Lease | null {
  if (lease) leases.push(lease);
  return lease;
}

describe('ConcurrencyLimiter', () => {
  it('hands out exactly `limit` leases; the next acquire is null', async () => {
    const limiter = new ConcurrencyLimiter(pool.connect(), { prefix: uniquePrefix('cc-limit') });
    const got = [];
    for (let i = 0; i < 4; i++) got.push(track(await limiter.acquire('job', 3)));
    expect(got.map((l) => l !== null)).toEqual([true, true, true, false]);
    expect(await limiter.count('job')).toBe(3);
    expect(new Set(got.filter((l) => l !== null).map((l) => l.id)).size).toBe(3);
  });

  it('grants exactly `limit` of many concurrent acquires from two replicas', async () => {
    const prefix = uniquePrefix('cc-race');
    const a = new ConcurrencyLimiter(pool.connect(), { prefix });
    const b = new ConcurrencyLimiter(pool.connect(), { prefix });
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).acquire('job', 3).then(track)));
    expect(got.filter((l) => l !== null)).toHaveLength(3);
    expect(await a.count('job')).toBe(3);
  });

  it('frees a slot on release (idempotently)', async () => {
    const limiter = new ConcurrencyLimiter(pool.connect(), { prefix: uniquePrefix('cc-release') });
    const held = [track(await limiter.acquire('job', 3)), track(await limiter.acquire('job', 3)), track(await limiter.acquire('job', 3))];
    expect(await limiter.acquire('job', 3)).toBeNull();
    await held[0]!.release();
    await held[0]!.release();
    expect(await limiter.count('job')).toBe(2);
    expect(await held[0]!.renew()).toBe(false);
    expect(track(await limiter.acquire('job', 3))).not.toBeNull();
    expect(await limiter.acquire('job', 3)).toBeNull();
  });

  it('a holder acquired under a known id can be freed by anyone who knows it (a crashed holder\'s work is over)', async () => {
    const limiter = new ConcurrencyLimiter(pool.connect(), { prefix: uniquePrefix('cc-holder') });
    const lease = await limiter.acquire('k', 1, { id: 'session-1', autoRenew: false });
    expect(lease?.id).toBe('session-1');
    expect(await limiter.acquire('k', 1, { autoRenew: false })).toBeNull();
    await limiter.releaseHolder('k', 'session-1');
    expect(await limiter.count('k')).toBe(0);
    expect(await limiter.acquire('k', 1, { autoRenew: false })).not.toBeNull();
    await limiter.releaseHolder('k', 'session-1'); // idempotent
  });

  it('stops counting a killed holder once its lease expires, and the slot can be taken again', async () => {
    const redisUrl = inject('redisUrl');
    const prefix = uniquePrefix('cc-crash');
    const limiter = new ConcurrencyLimiter(pool.connect(), { prefix });
    // A live holder next to the crashed one keeps the set key alive, so only per-member expiry
    // (not the key's TTL) can free the dead holder's slot.
    expect(track(await limiter.acquire('job', 2, { leaseMs: 10_000 }))).not.toBeNull();
    const fixture = fileURLToPath(new URL('./fixtures/hold-lease.ts', import.meta.url));
    const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, redisUrl, prefix, 'job', '2', '1500'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const lines = createInterface({ input: child.stdout! });
    const [firstLine] = (await Promise.race([
      once(lines, 'line'),
      once(child, 'exit').then(() => {
        throw new Error('lease holder exited before acquiring');
      }),
    ])) as [string];
    expect(firstLine).toMatch(/^acquired /);

    // Past the lease length the child is still counted: its auto-renewal is doing the work.
    await sleep(2000);
    expect(await limiter.count('job')).toBe(2);
    expect(await limiter.acquire('job', 2)).toBeNull();

    child.kill('SIGKILL');
    await once(child, 'exit');
    const killedAt = Date.now();
    // Renewed at most leaseMs/3 ago, so the lease is still live right after the kill.
    expect(await limiter.count('job')).toBe(2);

    let lease: Lease | null = null;
    while (!lease && Date.now() - killedAt < 5000) {
      await sleep(100);
      lease = track(await limiter.acquire('job', 2, { leaseMs: 5000 }));
    }
    expect(lease).not.toBeNull();
    expect(Date.now() - killedAt).toBeLessThan(2500);
    expect(await limiter.count('job')).toBe(2);
  });

  it('keeps a live holder slot beyond leaseMs with autoRenew, and loses it without', async () => {
    const limiter = new ConcurrencyLimiter(pool.connect(), { prefix: uniquePrefix('cc-renew'), leaseMs: 600 });
    const renewed = track(await limiter.acquire('renewed', 1));
    const plain = track(await limiter.acquire('plain', 1, { autoRenew: false }));
    expect(renewed).not.toBeNull();
    expect(plain).not.toBeNull();
    await sleep(1500);
    expect(await limiter.count('renewed')).toBe(1);
    expect(await limiter.acquire('renewed', 1)).toBeNull();
    expect(await limiter.count('plain')).toBe(0);
    expect(await plain!.renew()).toBe(false);
    expect(await renewed!.renew()).toBe(true);
  });

  it('reports a lease lost when auto-renewal finds it gone', async () => {
    const redis = pool.connect();
    const prefix = uniquePrefix('cc-lost');
    const limiter = new ConcurrencyLimiter(redis, { prefix, leaseMs: 300 });
    const lost = new Promise<Lease>((resolve) => {
      void limiter.acquire('job', 1, { onLost: resolve }).then(track);
    });
    // Simulates an operator or eviction removing the holder set.
    await sleep(50);
    await redis.del(`${prefix}job`);
    const lease = await Promise.race([lost, sleep(2000).then(() => null)]);
    expect(lease).not.toBeNull();
  });

  it('returns null for limit <= 0 and rejects a non-finite limit', async () => {
    const limiter = new ConcurrencyLimiter(pool.connect(), { prefix: uniquePrefix('cc-bounds') });
    expect(await limiter.acquire('job', 0)).toBeNull();
    await expect(limiter.acquire('job', Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    expect(await limiter.count('job')).toBe(0);
  });
});
