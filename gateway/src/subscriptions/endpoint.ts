import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { CloseCode, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import {
  getOperationAST, GraphQLError, parse, subscribe, validate,
  type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLFormattedError,
} from 'graphql';
import { appError, forbidden, SCOPES, unauthenticated, unavailable, type Identity, type Logger } from '@voxgate/kit';
import type { EdgeServices, UpgradeEndpoint } from '../edge';
import { clientAddressOf, type SocketCredentials } from '../socket-auth';
import { ChannelHub } from './channels';
import { connectionCredentials } from './credentials';
import { fieldResolver, subscribeFieldResolver, type SubscriptionContext } from './resolvers';
import { executableSchema } from './schema';

export const SUBSCRIPTIONS_PATH = '/graphql';
/** Active subscriptions one connection may hold; each has a queue, so this bounds a connection's memory. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
/** Subscription documents are small; a larger frame is refused by ws (close 1009) before it is parsed. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Time to send connection_init (graphql-ws closes with 4408 after it), as on the audio socket. */
const CONNECTION_INIT_TIMEOUT_MS = 10_000;
/** Clients that do not answer the close handshake at shutdown are cut after this. */
const SHUTDOWN_GRACE_MS = 2_000;

/** What one connection carries between graphql-ws callbacks (graphql-ws's `ctx.extra`). */
type ConnectionState = {
  /** kept for the connection's lifetime (in memory only, never logged) to re-authenticate every subscribe */
  credentials: SocketCredentials;
  meta: { clientAddress: string | null; userAgent: string | null };
  /** as of the last successful authentication (connect or the latest subscribe) */
  identity: Identity;
};

export interface SubscriptionDeps {
  redisUrl: string;
  log: Logger;
}

export interface SubscriptionEndpoint extends UpgradeEndpoint {
  /** the Redis channels this process currently listens to (diagnostics, tests) */
  channelCount(): number;
}

const isCoded = (e: unknown): e is Error & { extensions: { code: string } } =>
  e instanceof Error && typeof (e as { extensions?: { code?: unknown } }).extensions?.code === 'string';

/** A GraphQLError of this module's graphql realm, keeping the code (errors may come from the kit's). */
function asGraphQLError(e: Error & { extensions: Record<string, unknown> }): GraphQLError {
  return e instanceof GraphQLError ? e : new GraphQLError(e.message, { extensions: e.extensions });
}

const withCode = (code: string) => (e: GraphQLError) => new GraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { ...e.extensions, code } });

/**
 * GraphQL subscriptions (graphql-ws, subprotocol `graphql-transport-ws`) on the edge's `/graphql`.
 * `@apollo/gateway` does not execute subscriptions, so the edge does: documents are validated
 * against the gateway's API schema (a resolver-free copy: schema.ts) and run with graphql-js `subscribe`, fed by the events domains
 * publish on Redis (kit events.ts). Queries and mutations stay on HTTP POST /graphql.
 */
export function subscriptionEndpoint(services: EdgeServices, deps: SubscriptionDeps): SubscriptionEndpoint {
  const { log } = deps;
  const hub = new ChannelHub(deps.redisUrl, log);
  const resolverDeps = { services, hub };
  const subscribeResolver = subscribeFieldResolver(resolverDeps);
  const resolver = fieldResolver(resolverDeps);
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });

  /** Errors leave with a code; anything unexpected is logged and shown as a bare internal error. */
  const formatError = (e: GraphQLError): GraphQLFormattedError => {
    const json = e.toJSON();
    const original = e.originalError;
    const code = e.extensions?.code;
    if (code === 'INTERNAL_SERVER_ERROR' || (original && !isCoded(original))) {
      log.error({ err: original ?? e }, 'unexpected subscription error');
      return { message: 'Internal server error', ...(json.path ? { path: json.path } : {}), extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
    // request errors graphql-js raises itself (variable coercion) carry no code
    return { ...json, extensions: { ...json.extensions, code: typeof code === 'string' ? code : 'BAD_USER_INPUT' } };
  };

  const reauthenticate = async (state: ConnectionState): Promise<{ identity: Identity } | { error: GraphQLError }> => {
    try {
      const identity = await services.authenticate(state.credentials, state.meta);
      state.identity = identity;
      return { identity };
    } catch (e) {
      if (isCoded(e)) return { error: asGraphQLError(e) };
      log.error({ err: e }, 'subscription authentication failed unexpectedly');
      return { error: new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } }) };
    }
  };

  /**
   * The checks of one subscribe, in order: connection state, re-authentication, document,
   * operation type, validation, scope; then the source stream (which checks the field's own rules).
   * Returns the execution arguments, or the errors to answer the subscribe with.
   */
  const prepare = async (ctx: { extra: Partial<ConnectionState>; subscriptions: object }, payload: SubscribePayload): Promise<ExecutionArgs | readonly Error[]> => {
    const state = ctx.extra;
    if (!state.credentials || !state.meta) return [unauthenticated()];
    if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      return [appError('RATE_LIMITED', `At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection`)];
    }
    const auth = await reauthenticate(state as ConnectionState);
    if ('error' in auth) return [auth.error];
    const { identity } = auth;
    if (!identity.tenantId || !identity.userId) return [unauthenticated('A signed-in user is required')];
    const api = services.apiSchema();
    if (!api) return [unavailable('The schema is not loaded yet; try again shortly')];
    const schema = executableSchema(api);
    let document: DocumentNode;
    try {
      document = parse(payload.query);
    } catch (e) {
      return [e instanceof GraphQLError ? withCode('GRAPHQL_PARSE_FAILED')(e) : appError('BAD_USER_INPUT', 'The query could not be parsed')];
    }
    const operation = getOperationAST(document, payload.operationName ?? undefined);
    if (!operation) return [appError('BAD_USER_INPUT', 'Unable to identify the operation: name it with operationName')];
    if (operation.operation !== 'subscription') {
      return [appError('BAD_USER_INPUT', `Only subscriptions are served over this WebSocket; send ${operation.operation === 'query' ? 'queries' : 'mutations'} with HTTP POST /graphql`)];
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) return invalid.map(withCode('GRAPHQL_VALIDATION_FAILED'));
    if (!identity.scopes.includes(SCOPES.sessionsRead)) return [forbidden(`Missing scope: ${SCOPES.sessionsRead}`)];

    const contextValue: SubscriptionContext = { identity: identity as SubscriptionContext['identity'] };
    const args: ExecutionArgs = {
      schema, document, contextValue, operationName: payload.operationName, variableValues: payload.variables,
      subscribeFieldResolver: subscribeResolver, fieldResolver: resolver,
    };
    let result: Awaited<ReturnType<typeof subscribe>>;
    try {
      result = await subscribe(args);
    } catch (e) {
      log.error({ err: e }, 'subscribe failed');
      return [appError('INTERNAL_SERVER_ERROR', 'Internal server error')];
    }
    if (!(Symbol.asyncIterator in result)) {
      const errors = (result as ExecutionResult).errors ?? [];
      return errors.length > 0 ? errors : [appError('INTERNAL_SERVER_ERROR', 'Internal server error')];
    }
    contextValue.prepared = result;
    log.debug({ operation: operation.name?.value, userId: identity.userId }, 'subscription started');
    return args;
  };

  const server = useServer<Record<string, unknown> | undefined, ConnectionState>({
    // isProd: close reasons never carry internal error messages
    isProd: true,
    connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,

    // Authentication on connection_init. graphql-ws answers `false` with 4403; a missing or bad
    // credential is 4401 (graphql-ws's Unauthorized), so the socket is closed here first and the
    // second close that `false` triggers is a no-op on a closing socket.
    onConnect: async (ctx) => {
      const { socket, request } = ctx.extra;
      const refuse = (code: number, reason: string) => {
        // a close reason is limited to 123 bytes
        socket.close(code, Buffer.from(reason).subarray(0, 120).toString());
        return false;
      };
      const credentials = connectionCredentials(ctx.connectionParams, request);
      if (!credentials) return refuse(CloseCode.Unauthorized, 'Credentials required: an API key or a bearer access token');
      if ('invalid' in credentials) return refuse(CloseCode.Unauthorized, credentials.invalid);
      const meta = { clientAddress: clientAddressOf(request), userAgent: request.headers['user-agent'] ?? null };
      const state = { credentials, meta } as ConnectionState;
      const outcome = await reauthenticate(state);
      if ('error' in outcome) {
        if (outcome.error.extensions.code === 'UNAUTHENTICATED') return refuse(CloseCode.Unauthorized, outcome.error.message);
        return refuse(CloseCode.InternalServerError, 'Internal server error');
      }
      Object.assign(ctx.extra, state);
      return { tenant: outcome.identity.tenantName, userId: outcome.identity.userId };
    },

    // Every subscribe is checked afresh (credentials revoked or a tenant disabled since connect),
    // and the source stream is created here, so a refusal (UNAUTHENTICATED, FORBIDDEN, NOT_FOUND…)
    // reaches the client as graphql-ws's `error` message for that operation, not as a `next` carrying
    // errors. Returning GraphQLErrors never closes the socket; throwing would.
    // graphql-ws recognizes errors by `instanceof GraphQLError` of its own graphql import; errors
    // made elsewhere (the kit's helpers) are re-made here so that holds whatever the module layout.
    onSubscribe: async (ctx, _id, payload) => {
      let prepared: ExecutionArgs | readonly Error[];
      try {
        prepared = await prepare(ctx, payload);
      } catch (e) {
        // a bug must not close the connection and every other subscription on it
        log.error({ err: e }, 'preparing a subscription failed');
        prepared = [new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL_SERVER_ERROR' } })];
      }
      if (!Array.isArray(prepared)) return prepared as ExecutionArgs;
      return (prepared as readonly Error[]).map((e) => (isCoded(e) ? asGraphQLError(e) : e instanceof GraphQLError ? e : new GraphQLError(e.message, { originalError: e })));
    },
    // the stream was created (and checked) in onSubscribe; graphql-ws calls this right after it
    subscribe: (args) => (args.contextValue as SubscriptionContext).prepared as AsyncIterable<ExecutionResult> ?? subscribe(args),
    onError: (_ctx, _id, _payload, errors) => errors.map(formatError),
    onNext: (_ctx, _id, _payload, _args, result) => {
      if (!result.errors?.length) return;
      return { ...result, errors: result.errors.map(formatError) };
    },
  }, wss);

  let closing = false;
  return {
    path: SUBSCRIPTIONS_PATH,
    handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer) {
      // once disposed, graphql-ws no longer listens for connections: a socket accepted now would hang
      if (closing) return void socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    channelCount: () => hub.channelCount,
    close: async () => {
      closing = true;
      // dispose closes every client with 1001 and waits for them; a client that never answers the
      // close handshake would hold shutdown for ws's 30 s timeout, so it is cut after a grace period
      const cut = setTimeout(() => { for (const c of wss.clients) c.terminate(); }, SHUTDOWN_GRACE_MS);
      try {
        await server.dispose();
      } finally {
        clearTimeout(cut);
        await hub.close();
      }
    },
  };
}
