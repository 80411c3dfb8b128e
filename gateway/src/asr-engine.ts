import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@voxgate/kit';
import type { EmbeddedService } from '@voxgate/kit/embedded';

const ENGINE_MAIN = fileURLToPath(new URL('../../engines/asr/src/main.ts', import.meta.url));
const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const START_TIMEOUT_MS = 30_000;

/**
 * The reference ASR engine (engines/asr) as a child process of the embedded platform. A separate
 * process because pocketsphinx decodes synchronously through koffi: on the edge's event loop every
 * decoded chunk would delay every request and WebSocket frame of the platform.
 */
export async function startEmbeddedAsrEngine(log: Logger, port: number): Promise<(EmbeddedService & { target: string }) | null> {
  if (!fs.existsSync(MODEL_DIR)) {
    log.warn({ modelDir: MODEL_DIR }, 'pocketsphinx-en-us is not installed: no reference ASR engine (install it or set ASR_ENGINE_TARGET)');
    return null;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', ENGINE_MAIN], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // an engine left behind by a crashed platform would hold its port and memory
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the reference ASR engine did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('listening')) { clearTimeout(timer); resolve(); }
    });
    child.stderr.on('data', (d: Buffer) => log.debug({ engine: 'asr' }, d.toString().trim()));
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the reference ASR engine exited with ${code} before listening`)); });
  });
  const target = `127.0.0.1:${port}`;
  log.info({ target }, 'reference ASR engine started');
  return {
    url: `grpc://${target}`,
    target,
    stop: async () => {
      process.removeListener('exit', killOnExit);
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
