import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@voxgate/kit/embedded';

export { freePort };

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface PlatformProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** Runs `gateway/src/main.ts` as its own process, as `npm start` does (same flags). */
export function spawnPlatform(env: NodeJS.ProcessEnv, args: string[] = []): PlatformProcess {
  // the same V8 flags as `pnpm serve`
  const child = spawn(process.execPath, ['--heap-growing-percent=20', '--import', 'tsx', 'gateway/src/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls a URL until it answers 200, or fails with the process output when it does not. */
export async function waitReady(url: string, proc: PlatformProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`process exited (${proc.child.exitCode}):\n${proc.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      if (res.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${proc.output()}`);
}
