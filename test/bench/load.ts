import { Pool } from 'undici';

export interface LoadTarget {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  name: string;
  requests: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Closed-loop load: `concurrency` workers send back-to-back requests for `seconds`. */
export async function runLoad(origin: string, target: LoadTarget, concurrency: number, seconds: number): Promise<LoadResult> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now();
      const res = await pool.request({ method: target.method, path: target.path, headers: target.headers, body: target.body });
      await res.body.text();
      latencies.push(performance.now() - start);
      if (res.statusCode !== 200) errors++;
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - began) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return { name: target.name, requests: latencies.length, rps: latencies.length / elapsed, p50ms: percentile(latencies, 50), p99ms: percentile(latencies, 99), errors };
}
