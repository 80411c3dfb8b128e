/** Helpers shared by the benchmark suites: process memory and CPU, shared services, statistics, tables. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropDatabase, freshDatabase } from '../support/database';
import { createLogger } from '@voxgate/kit';
import { startEmbeddedPostgres, startPrivateRedis, type EmbeddedService } from '@voxgate/kit/embedded';
import type { PlatformProcess } from '../support/processes';

/** BENCH_SECONDS: the length of one measurement (default 8); every suite scales with it. */
export const BENCH_SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

export function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

const CLOCK_TICKS = 100;

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name (which may hold spaces) start after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/** CPU seconds the whole machine has spent busy (all cores, /proc/stat), to see load from outside the benchmark. */
export function machineBusySeconds(): number {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    const busy = (cpu[0] ?? 0) + (cpu[1] ?? 0) + (cpu[2] ?? 0) + (cpu[5] ?? 0) + (cpu[6] ?? 0) + (cpu[7] ?? 0);
    return busy / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}

/**
 * How busy the machine is with other work right now: busy CPU over one second while this process
 * idles, in % of one core. The suites print it: on a shared machine other work skews every number.
 */
export async function machineNote(): Promise<string> {
  const m0 = machineBusySeconds();
  const u0 = process.cpuUsage();
  await sleep(1_000);
  const u = process.cpuUsage(u0);
  const other = Math.max(0, (machineBusySeconds() - m0 - (u.user + u.system) / 1e6) * 100);
  return `other work on this machine before the suite: ${other.toFixed(0)}% of one core (of ${os.cpus().length * 100}%)${other > 20 ? ', numbers may be low' : ''}`;
}

/** tsx runs a script as a child of a small launcher; the real server is the deepest node process. */
export function serverPid(proc: PlatformProcess | { child: { pid?: number | undefined } }): number | undefined {
  let pid = proc.child.pid;
  for (let i = 0; i < 3 && pid; i++) {
    let children: number[];
    try {
      children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      break;
    }
    const node = children.find((c) => {
      try {
        return fs.readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('node');
      } catch {
        return false;
      }
    });
    if (!node) break;
    pid = node;
  }
  return pid;
}

export interface SharedServices {
  databaseUrl: string;
  redisUrl: string;
  stop(): Promise<void>;
}

/**
 * A fresh database on DATABASE_URL's server and REDIS_URL when given (so runs never see each
 * other's tenants and models), else an embedded Postgres and a private Redis under `dir`.
 */
export async function sharedServices(dir: string): Promise<SharedServices> {
  const owned: EmbeddedService[] = [];
  const log = createLogger('bench', 'warn');
  const server = process.env.DATABASE_URL;
  let databaseUrl = server ? await freshDatabase(server) : undefined;
  if (server && databaseUrl) {
    const fresh = databaseUrl;
    owned.push({ url: fresh, stop: () => dropDatabase(server, fresh) });
  }
  let redisUrl = process.env.REDIS_URL;
  try {
    if (!databaseUrl) {
      const pg = await startEmbeddedPostgres(path.join(dir, 'shared'), log);
      owned.push(pg);
      databaseUrl = pg.url;
    }
    if (!redisUrl) {
      const r = await startPrivateRedis(path.join(dir, 'shared'), log);
      owned.push(r);
      redisUrl = r.url;
    }
  } catch (e) {
    for (const s of owned.reverse()) await s.stop();
    throw e;
  }
  return {
    databaseUrl,
    redisUrl,
    stop: async () => {
      for (const s of owned.reverse()) await s.stop();
    },
  };
}

/** Nearest-rank percentile of an ascending array. */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

export function summarize(xs: number[]): { n: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  const mean = s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN;
  return { n: s.length, p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN, mean };
}

export const median = (xs: number[]): number => percentile([...xs].sort((a, b) => a - b), 50);

export const fmt = (n: number, d = 2): string => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

/** A left-aligned first column and right-aligned other columns. */
export function table(header: string[], rows: (string | number)[][], indent = '  '): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => indent + r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), indent + widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Wall-clock milliseconds since the epoch with sub-millisecond resolution, comparable across processes of this host. */
export const epochMs = (): number => performance.timeOrigin + performance.now();
