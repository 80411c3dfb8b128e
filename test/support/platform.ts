import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { startPlatform, type Platform, type PlatformHooks } from '@voxgate/gateway/platform';
import { generateApiKey } from '@voxgate/tenancy/key-format';
import { dropDatabase, freshDatabase } from './database';
import { EdgeClient } from './http';

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

export interface TestPlatform {
  platform: Platform;
  client: EdgeClient;
  /** the system administrator's key (BOOTSTRAP_API_KEY) */
  rootKey: string;
  databaseUrl: string;
  redisUrl: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** The whole platform in this process (single mode) on a fresh database. */
export async function startTestPlatform(extraEnv: NodeJS.ProcessEnv = {}, hooks: PlatformHooks = {}): Promise<TestPlatform> {
  const serverUrl = inject('databaseUrl');
  const databaseUrl = await freshDatabase(serverUrl);
  const redisUrl = inject('redisUrl');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-test-'));
  const rootKey = generateApiKey();
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, PORT: '0', DEV_IDP_PORT: '0', DATA_DIR: dataDir,
    BOOTSTRAP_API_KEY: rootKey, LOG_LEVEL: 'silent', DEV_IDP_REDIRECT_URIS: REDIRECT_URI,
    // suites that stream start their own engine and pass ASR_ENGINE_TARGET
    ASR_ENGINE_EMBEDDED: 'off', ...extraEnv,
  };
  const platform = await startPlatform(env, 'all', hooks);
  return {
    platform, client: new EdgeClient(platform.url), rootKey, databaseUrl, redisUrl, dataDir, env,
    close: async () => {
      await platform.close();
      await dropDatabase(serverUrl, databaseUrl);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
