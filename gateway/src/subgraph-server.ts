import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express from 'express';
import { GraphQLError } from 'graphql';
import { IDENTITY_HEADER, IdentityVerifier, type BaseContext, type SubgraphDefinition } from '@voxgate/kit';
import type { ReadinessCheck } from './edge';

/** One subgraph as its own HTTP service (distributed mode). Calls without a valid signed identity are refused. */
export async function startSubgraphServer(
  subgraph: SubgraphDefinition,
  verifier: IdentityVerifier,
  opts: { host: string; port: number; readiness: ReadinessCheck[] },
): Promise<{ url: string; close(): Promise<void> }> {
  const apollo = new ApolloServer<BaseContext>({ schema: subgraph.schema, introspection: false, includeStacktraceInErrorResponses: false });
  await apollo.start();
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => { res.json({ status: 'ok' }); });
  app.get('/readyz', async (_req, res) => {
    try {
      await Promise.all(opts.readiness.map((r) => r.check()));
      res.json({ status: 'ready' });
    } catch (e) {
      res.status(503).json({ status: 'not ready', error: (e as Error).message });
    }
  });
  app.use('/graphql', express.json({ limit: '5mb' }), expressMiddleware(apollo, {
    context: async ({ req }) => {
      const raw = req.headers[IDENTITY_HEADER];
      const identity = await verifier.verify(Array.isArray(raw) ? raw[0] : raw);
      if (!identity) {
        throw new GraphQLError('Missing or invalid internal identity', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
      }
      return subgraph.createContext(identity);
    },
  }));
  const server = http.createServer({ keepAliveTimeout: 65_000 }, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host}:${port}/graphql`,
    close: async () => {
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeIdleConnections(); });
      await apollo.stop();
    },
  };
}
