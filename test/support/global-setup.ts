import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createLogger } from '@voxgate/kit';
import { startEmbeddedPostgres, startPrivateRedis, type EmbeddedService } from '@voxgate/kit/embedded';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * Tests use DATABASE_URL / REDIS_URL when given; otherwise the same embedded defaults the platform
 * uses (embedded Postgres, a private redis-server), started once for the whole run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const log = createLogger('test-setup', 'warn');
  const dir = path.resolve('.test-data');
  const owned: EmbeddedService[] = [];
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres(dir, log);
    owned.push(pg);
    databaseUrl = pg.url;
  }
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const r = await startPrivateRedis(dir, log);
    owned.push(r);
    redisUrl = r.url;
  }
  project.provide('databaseUrl', databaseUrl);
  project.provide('redisUrl', redisUrl);
  return async () => {
    for (const s of owned) await s.stop();
  };
}
