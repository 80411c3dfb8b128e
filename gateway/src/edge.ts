import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import type { ApolloGateway } from '@apollo/gateway';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { IdentitySigner, type FixedWindowRateLimiter, type Identity, type Logger, type Redis } from '@voxgate/kit';
import type { EffectiveLimitsReader } from '@voxgate/billing';
import { buildFacadeRouter, buildOpenApi, problem, ROUTES, sendProblem, type BinaryResponder, type OperationExecutor } from '@voxgate/rest-facade';
import type { Authenticator } from '@voxgate/tenancy';
import { authenticationMiddleware } from './authentication';
import { rateLimitMiddleware } from './rate-limiting';
import { socketAuthenticator, type SocketAuthenticator } from './socket-auth';
import type { EdgeContext } from './context';

export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/** What the edge's WebSocket endpoints get from it: the schema, in-process operations and authentication. */
export interface EdgeServices {
  /** the gateway's API schema, once loaded */
  apiSchema(): GraphQLSchema | null;
  /** runs a GraphQL operation through the gateway as `identity` (like the REST facade) */
  execute: OperationExecutor;
  authenticate: SocketAuthenticator;
}

/** A WebSocket endpoint of the edge, by exact path. */
export interface UpgradeEndpoint {
  path: string;
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

export interface EdgeOptions {
  host: string;
  port: number;
  log: Logger;
  gateway: ApolloGateway;
  authenticator: Authenticator;
  redis: Redis;
  limitsReader: EffectiveLimitsReader;
  limiter: FixedWindowRateLimiter | null;
  signer: IdentitySigner;
  readiness: ReadinessCheck[];
  version: string;
  /** streamers of the facade's binary downloads, by responder name (Route.binary) */
  binaries?: Record<string, BinaryResponder>;
  /** WebSocket endpoints (GraphQL subscriptions, the audio stream), built once the edge's services exist */
  upgrades?: (services: EdgeServices) => UpgradeEndpoint[];
}

export interface Edge {
  url: string;
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

function edgeContext(identity: Identity, signer: IdentitySigner): EdgeContext {
  let signed: Promise<string> | null = null;
  return { identity, signedIdentity: () => (signed ??= signer.sign(identity)) };
}

export async function startEdge(opts: EdgeOptions): Promise<Edge> {
  const { log } = opts;
  let apiSchema: GraphQLSchema | null = null;
  opts.gateway.onSchemaLoadOrUpdate(({ apiSchema: s }) => { apiSchema = s; });

  const apollo = new ApolloServer<EdgeContext>({
    gateway: opts.gateway,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    formatError: (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
      const code = formatted.extensions?.code;
      if (code === 'INTERNAL_SERVER_ERROR' || code === undefined) {
        log.error({ err: error }, 'unexpected GraphQL error');
        return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' }, ...(formatted.path ? { path: formatted.path } : {}) };
      }
      const { serviceName: _s, exception: _e, stacktrace: _st, ...extensions } = formatted.extensions ?? {};
      return { ...formatted, extensions };
    },
  });
  await apollo.start();

  const execute: OperationExecutor = async (operation, identity) => {
    const response = await apollo.executeOperation(operation, { contextValue: edgeContext(identity, opts.signer) });
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not used by the facade');
    const { data, errors } = response.body.singleResult;
    return { data: (data ?? null) as Record<string, unknown> | null, errors: errors as never };
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback');
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  app.get('/readyz', async (_req, res) => {
    const results = await Promise.all(opts.readiness.map(async (r) => {
      try { await r.check(); return [r.name, 'ok'] as const; } catch (e) { return [r.name, `unavailable: ${(e as Error).message}`] as const; }
    }));
    const ready = results.every(([, s]) => s === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: Object.fromEntries(results) });
  });

  const json = express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] });
  const authenticate = opts.limiter
    ? [authenticationMiddleware(opts.authenticator, opts.redis), rateLimitMiddleware(opts.limitsReader, opts.limiter)]
    : [authenticationMiddleware(opts.authenticator, opts.redis)];

  app.get('/api/v1/openapi.json', (_req, res) => {
    if (!apiSchema) return sendProblem(res, problem(503, 'UNAVAILABLE', 'Schema not loaded yet'));
    res.json(buildOpenApi(ROUTES, apiSchema, { version: opts.version }));
  });
  const facade = buildFacadeRouter(ROUTES, execute, opts.binaries);
  app.use('/api/v1', json, authenticate, facade);
  app.use('/api/v1', (req, res) => sendProblem(res, problem(404, 'NOT_FOUND', `No route ${req.method} ${req.originalUrl}`, { instance: req.originalUrl })));

  app.use('/graphql', json, authenticate, expressMiddleware(apollo, {
    context: async ({ res }) => edgeContext(res.locals.identity as Identity, opts.signer),
  }));

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number; message?: string };
    if (e.type === 'entity.parse.failed') return sendProblem(res, problem(400, 'BAD_USER_INPUT', 'Request body is not valid JSON', { instance: req.originalUrl }));
    if (e.type === 'entity.too.large') return sendProblem(res, problem(413, 'PAYLOAD_TOO_LARGE', 'Request body too large', { instance: req.originalUrl }));
    log.error({ err }, 'unhandled edge error');
    sendProblem(res, problem(500, 'INTERNAL_SERVER_ERROR', 'Internal server error', { instance: req.originalUrl }));
  });

  const server = http.createServer({ keepAliveTimeout: 65_000 }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const endpoints = opts.upgrades?.({
    apiSchema: () => apiSchema,
    execute,
    authenticate: socketAuthenticator(opts.authenticator, opts.redis, opts.limitsReader),
  }) ?? [];
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the socket over without an error listener: a client resetting the connection while
    // it is authenticated would otherwise be an uncaught error that takes the whole edge down
    socket.on('error', () => socket.destroy());
    const pathname = new URL(req.url ?? '/', 'http://edge.invalid').pathname;
    const endpoint = endpoints.find((e) => e.path === pathname);
    if (endpoint) return endpoint.handleUpgrade(req, socket, head);
    socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host}:${port}`,
    port,
    server,
    close: async () => {
      for (const e of endpoints) await e.close().catch((err: unknown) => log.warn({ err }, `closing ${e.path} failed`));
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); });
      await apollo.stop();
    },
  };
}
