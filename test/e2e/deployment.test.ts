import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { IdentitySigner, anonymousIdentity, type Identity } from '@voxgate/kit';
import { generateApiKey } from '@voxgate/tenancy/key-format';
import { dropDatabase, freshDatabase } from '../support/database';
import { EdgeClient } from '../support/http';
import { freePort, spawnPlatform, waitReady, type PlatformProcess } from '../support/processes';

type Json = Record<string, unknown>;

describe('distributed mode: each subgraph and the edge in its own process', () => {
  const secret = randomBytes(32).toString('hex');
  const rootKey = generateApiKey();
  let databaseUrl: string;
  const subgraphs: PlatformProcess[] = [];
  let edge: PlatformProcess;
  let subgraphUrl: string;
  let client: EdgeClient;
  let dataDir: string;

  beforeAll(async () => {
    databaseUrl = await freshDatabase(inject('databaseUrl'));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-dist-'));
    const common = { DATABASE_URL: databaseUrl, REDIS_URL: inject('redisUrl'), INTERNAL_TOKEN_SECRET: secret, DATA_DIR: dataDir };
    // every subgraph in its own process, started side by side
    const urls: string[] = [];
    for (const name of ['tenancy', 'billing', 'speaker-models', 'sessions']) {
      const port = await freePort();
      subgraphs.push(spawnPlatform({ ...common, PORT: String(port) }, [`--role=subgraph:${name}`]));
      urls.push(`${name}=http://127.0.0.1:${port}/graphql`);
    }
    subgraphUrl = String(urls[0]?.split('=')[1]);
    await Promise.all(subgraphs.map((s, i) => waitReady(new URL('/readyz', String(urls[i]?.split('=')[1])).toString(), s)));
    const edgePort = await freePort();
    edge = spawnPlatform({
      ...common, PORT: String(edgePort), DEV_IDP_PORT: String(await freePort()), VOXGATE_MODE: 'distributed',
      SUBGRAPH_URLS: urls.join(','), BOOTSTRAP_API_KEY: rootKey,
    }, ['--role=edge']);
    await waitReady(`http://127.0.0.1:${edgePort}/readyz`, edge);
    client = new EdgeClient(`http://127.0.0.1:${edgePort}`);
  }, 120_000);

  afterAll(async () => {
    await edge?.stop();
    await Promise.all(subgraphs.map((s) => s.stop()));
    if (databaseUrl) await dropDatabase(inject('databaseUrl'), databaseUrl);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports the remote subgraph in /readyz', async () => {
    const res = await client.get('/readyz');
    expect(res.body).toMatchObject({
      status: 'ready', checks: { database: 'ok', redis: 'ok', 'subgraph:tenancy': 'ok', 'subgraph:billing': 'ok', 'subgraph:speaker-models': 'ok', 'subgraph:sessions': 'ok' },
    });
  });

  it('serves REST and GraphQL through the remote subgraph', async () => {
    const roles = await client.get<{ slug: string; id: string }[]>('/api/v1/roles', { apiKey: rootKey });
    expect(roles.status).toBe(200);
    const id = (slug: string) => roles.body.find((r) => r.slug === slug)?.id;
    const created = await client.post<Json>('/api/v1/admin/tenants', {
      name: 'dist-acme', displayName: 'Distributed Acme', firstLoginRoleId: id('tenant-admin'), defaultRoleId: id('member'),
    }, { apiKey: rootKey });
    expect(created.status).toBe(201);
    const gql = await client.gql<{ tenant: Json }>('query ($id: ID!) { tenant(id: $id) { name firstLoginRole { slug } } }', { id: created.body.id }, { apiKey: rootKey });
    expect(gql.data?.tenant).toEqual({ name: 'dist-acme', firstLoginRole: { slug: 'tenant-admin' } });
    // an entity spread over three subgraph processes, joined by the gateway
    const joined = await client.gql<{ me: { username: string; effectiveRateLimits: { globalRequests: number }; tenant: { sentverModels: unknown[] } } }>(
      '{ me { username effectiveRateLimits { globalRequests } tenant { sentverModels { name } } } }', {}, { apiKey: rootKey });
    expect(joined.errors, `edge: ${edge.output()}\nsubgraphs: ${subgraphs.map((p) => p.output()).join('\n')}`).toEqual([]);
    expect(joined.data?.me).toMatchObject({ username: 'bootstrap', effectiveRateLimits: { globalRequests: 1200 }, tenant: { sentverModels: [] } });
    expect((await client.get('/api/v1/rate-limits', { apiKey: rootKey })).status).toBe(200);
    const dup = await client.post<Json>('/api/v1/admin/tenants', { name: 'dist-acme', displayName: 'x', firstLoginRoleId: id('member'), defaultRoleId: id('member') }, { apiKey: rootKey });
    expect(dup.status).toBe(409);
  });

  it('signs users in through the dev identity provider', async () => {
    const login = await client.post<{ access_token: string }>('/api/v1/auth/login', { username: 'admin', password: 'admin' });
    expect(login.status).toBe(200);
    const me = await client.get<Json>('/api/v1/users/me', { bearer: login.body.access_token });
    expect(me.body).toMatchObject({ username: 'admin', role: { slug: 'system-admin' } });
  });

  describe('a subgraph called directly', () => {
    const query = JSON.stringify({ query: '{ tenants(page: 0, size: 5) { total } }' });
    const call = (headers: Record<string, string>) =>
      fetch(subgraphUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: query });
    const admin = (): Identity => ({
      ...anonymousIdentity('system', null, null), kind: 'user', userId: '00000000-0000-4000-8000-000000000001',
      tenantId: '00000000-0000-4000-8000-000000000002', hierarchyOrder: 1000, scopes: ['admin:tenants:read'], credential: 'api-key',
    });

    it('refuses a call without the signed identity', async () => {
      const res = await call({});
      expect(res.status).toBe(401);
      const body = (await res.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).toBe('UNAUTHENTICATED');
    });

    it('refuses a forged identity signed with another secret', async () => {
      const forged = await new IdentitySigner(randomBytes(32).toString('hex')).sign(admin());
      expect((await call({ 'x-voxgate-identity': forged })).status).toBe(401);
      expect((await call({ 'x-voxgate-identity': 'eyJhbGciOiJub25lIn0.eyJpZG4iOnt9fQ.' })).status).toBe(401);
    });

    it('accepts the identity only when signed with the shared internal secret', async () => {
      const genuine = await new IdentitySigner(secret).sign(admin());
      const res = await call({ 'x-voxgate-identity': genuine });
      expect(res.status).toBe(200);
    });
  });
});

describe('embedded defaults: no DATABASE_URL or REDIS_URL', () => {
  let dataDir: string;
  let proc: PlatformProcess | undefined;
  const ports: { edge: number; idp: number } = { edge: 0, idp: 0 };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-embedded-'));
    ports.edge = await freePort();
    ports.idp = await freePort();
  });
  afterAll(async () => {
    await proc?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (extra: NodeJS.ProcessEnv = {}) => {
    proc = spawnPlatform({ DATA_DIR: dataDir, PORT: String(ports.edge), DEV_IDP_PORT: String(ports.idp), LOG_LEVEL: 'warn', ...extra });
    await waitReady(`http://127.0.0.1:${ports.edge}/readyz`, proc, 90_000);
    return new EdgeClient(`http://127.0.0.1:${ports.edge}`);
  };

  it('starts on embedded Postgres and a private Redis, prints a bootstrap key once, and keeps data across a restart', async () => {
    let client = await start();
    const key = /Bootstrap API key[^:]*: (vxg_[0-9A-Za-z]{64})/.exec(proc?.output() ?? '')?.[1];
    expect(key, proc?.output()).toBeDefined();
    const apiKey = String(key);
    const roles = await client.get<{ slug: string; id: string }[]>('/api/v1/roles', { apiKey });
    const id = (slug: string) => roles.body.find((r) => r.slug === slug)?.id;
    const created = await client.post<Json>('/api/v1/admin/tenants', {
      name: 'survivor', displayName: 'Survivor', firstLoginRoleId: id('tenant-admin'), defaultRoleId: id('member'),
    }, { apiKey });
    expect(created.status).toBe(201);
    const login = await client.post<{ refresh_token: string }>('/api/v1/auth/login', { username: 'admin', password: 'admin' });
    expect(login.status).toBe(200);
    expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);

    expect(await proc?.stop()).toBe(0);
    client = await start();
    expect(proc?.output()).not.toContain('Bootstrap API key');
    const again = await client.get<Json>(`/api/v1/admin/tenants/${String(created.body.id)}`, { apiKey });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ name: 'survivor', displayName: 'Survivor' });
    // the dev provider's keys and grants persist too: a refresh token from before the restart works
    const refreshed = await client.post('/api/v1/auth/refresh-token', { refreshToken: login.body.refresh_token });
    expect(refreshed.status).toBe(200);

    // an operator-chosen BOOTSTRAP_API_KEY replaces the generated one
    expect(await proc?.stop()).toBe(0);
    const chosen = generateApiKey();
    client = await start({ BOOTSTRAP_API_KEY: chosen });
    expect((await client.get('/api/v1/users/me', { apiKey: chosen })).status).toBe(200);
    expect((await client.get('/api/v1/users/me', { apiKey })).status).toBe(401);
  }, 180_000);
});

describe('configuration', () => {
  it('refuses to start on invalid settings and names every bad variable', async () => {
    const proc = spawnPlatform({ PORT: 'eighty', BOOTSTRAP_API_KEY: 'not-a-key', VOXGATE_MODE: 'cluster', DATA_DIR: os.tmpdir() });
    expect(await proc.exited).toBe(2);
    const out = proc.output();
    expect(out).toContain('Invalid configuration');
    for (const name of ['PORT', 'BOOTSTRAP_API_KEY', 'VOXGATE_MODE']) expect(out).toContain(name);
  });
});
