/**
 * Suite "api": the tenant read through the REST facade, the same read as GraphQL through the
 * gateway, and the same query sent straight to the tenancy subgraph, measured in one run, with the
 * ratios between them and the resident memory of the processes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { IdentitySigner, type Identity } from '@voxgate/kit';
import { generateApiKey } from '@voxgate/tenancy/key-format';
import { EdgeClient } from '../support/http';
import { freePort, spawnPlatform, waitReady, type PlatformProcess } from '../support/processes';
import { BENCH_SECONDS, rssMb, serverPid, sharedServices } from './common';
import { runLoad, type LoadResult, type LoadTarget } from './load';

const SECONDS = BENCH_SECONDS;
const WARMUP_SECONDS = 3;

export async function runApiSuite(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-bench-'));
  const secret = randomBytes(32).toString('hex');
  const rootKey = generateApiKey();
  // the edge and the standalone subgraph must share one database and Redis: the embedded ones are
  // started here (as the platform would) when none is given
  const services = await sharedServices(dataDir);
  const { databaseUrl, redisUrl } = services;
  // ASR_ENGINE_EMBEDDED=off: each edge would otherwise start the reference ASR engine on the same
  // fixed port (50061); nothing here uses it
  const common: NodeJS.ProcessEnv = { DATA_DIR: dataDir, INTERNAL_TOKEN_SECRET: secret, LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, ASR_ENGINE_EMBEDDED: 'off' };

  const edgePort = await freePort();
  const edge = spawnPlatform({ ...common, PORT: String(edgePort), DEV_IDP_PORT: String(await freePort()), BOOTSTRAP_API_KEY: rootKey });
  const procs: PlatformProcess[] = [edge];
  try {
    await waitReady(`http://127.0.0.1:${edgePort}/readyz`, edge, 120_000);
    const origin = `http://127.0.0.1:${edgePort}`;
    const client = new EdgeClient(origin);
    const roles = await client.get<{ slug: string; id: string }[]>('/api/v1/roles', { apiKey: rootKey });
    const roleId = (slug: string) => roles.body.find((r) => r.slug === slug)?.id;
    const tenant = await client.post<{ id: string }>('/api/v1/admin/tenants', {
      name: 'bench', displayName: 'Bench tenant', firstLoginRoleId: roleId('tenant-admin'), defaultRoleId: roleId('member'),
      oidcProvider: { clientId: 'bench', issuerUri: 'https://idp.bench.invalid', tokenUri: 'https://idp.bench.invalid/token', jwkSetUri: 'https://idp.bench.invalid/jwks' },
    }, { apiKey: rootKey });
    if (tenant.status !== 201) throw new Error(`tenant: ${tenant.status} ${tenant.text}`);
    const id = tenant.body.id;
    // the measurement is of the platform, not of the default 1,200 requests/minute budget
    const lifted = await client.request('PATCH', '/api/v1/admin/rate-limits/defaults', { apiKey: rootKey, body: { globalRequests: 2_147_483_647 } });
    if (lifted.status !== 200) throw new Error(`rate limits: ${lifted.status} ${lifted.text}`);
    const me = await client.get<{ id: string; tenantId: string }>('/api/v1/users/me', { apiKey: rootKey });

    const fields = 'id name displayName description enabled createdAt firstLoginRole { id slug name hierarchyOrder } defaultRole { id slug name hierarchyOrder } oidcProvider { id providerKey clientId clientSecretConfigured issuerUri tokenUri jwkSetUri } speechServiceFileInternalPublishEnabled speechServiceFileDirectShareEnabled speechServiceSessionMaxConcurrent speechServiceSessionRecordingEnabled';
    const query = JSON.stringify({ query: `query ($id: ID!) { tenant(id: $id) { ${fields} } }`, variables: { id } });

    const subgraphPort = await freePort();
    const subgraph = spawnPlatform({ ...common, PORT: String(subgraphPort) }, ['--role=subgraph:tenancy']);
    procs.push(subgraph);
    await waitReady(`http://127.0.0.1:${subgraphPort}/readyz`, subgraph);
    const subgraphOrigin = `http://127.0.0.1:${subgraphPort}`;
    const identity: Identity = {
      kind: 'user', tenantId: me.body.tenantId, tenantName: 'system', userId: me.body.id, username: 'bootstrap', roleId: null,
      hierarchyOrder: 1000, scopes: ['admin:tenants:read'], credential: 'api-key', apiKeyId: null, clientAddress: '127.0.0.1', userAgent: null,
    };

    const targets: [string, LoadTarget][] = [
      [origin, { name: 'REST facade  GET /api/v1/admin/tenants/{id}', method: 'GET', path: `/api/v1/admin/tenants/${id}`, headers: { 'x-api-key': rootKey } }],
      [origin, { name: 'GraphQL via gateway  POST /graphql', method: 'POST', path: '/graphql', headers: { 'x-api-key': rootKey, 'content-type': 'application/json' }, body: query }],
      [subgraphOrigin, { name: 'tenancy subgraph direct  POST /graphql', method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: query }],
    ];

    // limiter overhead: a second edge on the same database and Redis with RATE_LIMITS=off, measured
    // in alternating rounds so drift affects both sides alike
    const offPort = await freePort();
    const edgeOff = spawnPlatform({ ...common, PORT: String(offPort), RATE_LIMITS: 'off', DEV_IDP_ENABLED: 'false', BOOTSTRAP_API_KEY: rootKey });
    procs.push(edgeOff);
    await waitReady(`http://127.0.0.1:${offPort}/readyz`, edgeOff, 120_000);
    const offOrigin = `http://127.0.0.1:${offPort}`;
    const tenantRead = (name: string): LoadTarget => ({ name, method: 'GET', path: `/api/v1/admin/tenants/${id}`, headers: { 'x-api-key': rootKey } });
    await runLoad(origin, tenantRead('warm on'), 4, WARMUP_SECONDS);
    await runLoad(offOrigin, tenantRead('warm off'), 4, WARMUP_SECONDS);
    const onP50: number[] = [];
    const offP50: number[] = [];
    const rounds = 4;
    for (let i = 0; i < rounds; i++) {
      onP50.push((await runLoad(origin, tenantRead('on'), 1, SECONDS / rounds)).p50ms);
      offP50.push((await runLoad(offOrigin, tenantRead('off'), 1, SECONDS / rounds)).p50ms);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

    const latency: LoadResult[] = [];
    const throughput: LoadResult[] = [];
    for (const [o, target] of targets) {
      // the internal identity lives 60 s: sign it right before the target that needs it
      if (o === subgraphOrigin) target.headers['x-voxgate-identity'] = await new IdentitySigner(secret).sign(identity);
      await runLoad(o, target, 8, WARMUP_SECONDS);
      latency.push(await runLoad(o, target, 1, SECONDS));
      throughput.push(await runLoad(o, target, 16, SECONDS));
    }
    const edgeRss = rssMb(serverPid(edge));
    const subgraphRss = rssMb(serverPid(subgraph));

    const fmt = (n: number, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
    console.log(`\nVoxgate benchmark: ${SECONDS}s per measurement, ${os.cpus().length} cores, single-process platform (edge + subgraphs in one process)\n`);
    console.log('latency, 1 connection (sequential requests):');
    for (const r of latency) console.log(`  ${r.name.padEnd(48)} p50 ${fmt(r.p50ms, 3)} ms   p99 ${fmt(r.p99ms, 3)} ms   errors ${r.errors}`);
    console.log('throughput, 16 connections:');
    for (const r of throughput) console.log(`  ${r.name.padEnd(48)} ${fmt(r.rps, 0)} req/s   p50 ${fmt(r.p50ms, 3)} ms   p99 ${fmt(r.p99ms, 3)} ms   errors ${r.errors}`);
    const [facade, gateway, direct] = latency;
    const [facadeT, gatewayT] = throughput;
    console.log('ratios:');
    if (facade && gateway) {
      console.log(`  facade / gateway p50 latency: ${fmt(facade.p50ms / gateway.p50ms, 3)}  (target <= 1.15)`);
      console.log(`  facade / gateway p99 latency: ${fmt(facade.p99ms / gateway.p99ms, 3)}`);
    }
    if (gateway && direct) console.log(`  gateway / subgraph-direct p50 latency: ${fmt(gateway.p50ms / direct.p50ms, 3)}`);
    if (facadeT && gatewayT) console.log(`  facade / gateway throughput: ${fmt(facadeT.rps / gatewayT.rps, 3)}   facade ${fmt(facadeT.rps, 0)} req/s (target >= 1500)`);
    const on = median(onP50);
    const off = median(offP50);
    console.log(`rate limiter overhead, REST tenant read, 1 connection, ${rounds} alternating rounds:`);
    console.log(`  limits on  p50 ${fmt(on, 3)} ms   limits off p50 ${fmt(off, 3)} ms`);
    console.log(`  on / off p50: ${fmt(on / off, 3)}   added at p50: ${fmt(on - off, 3)} ms (target <= 0.3 ms)`);
    console.log('memory after warm-up (resident):');
    console.log(`  edge + subgraphs (single process): ${fmt(edgeRss, 1)} MB (target < 300 MB)`);
    console.log(`  standalone tenancy subgraph process (for the direct measurement): ${fmt(subgraphRss, 1)} MB`);
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await services.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
