import { defaultFieldResolver, GraphQLError, type GraphQLFieldResolver } from 'graphql';
import {
  appError, forbidden, isUuid, notFound, SCOPES, sessionChannel, tenantSessionsChannel, unavailable,
  type Identity, type StreamingSessionEvent, type StreamingSessionState,
} from '@voxgate/kit';
import type { OperationResult } from '@voxgate/rest-facade';
import type { EdgeServices } from '../edge';
import type { ChannelHub } from './channels';
import { EventStream, fixedStream } from './event-stream';
import { isRemote, markRemote, sessionQueryFor, sessionQueryVariables } from './session-field';

/** The execution context of one subscription: who subscribed (authenticated for this subscribe). */
export interface SubscriptionContext {
  identity: Identity & { tenantId: string; userId: string };
  /** the source stream created while the subscribe was checked (see endpoint.ts) */
  prepared?: AsyncIterable<unknown>;
}

const TERMINAL: ReadonlySet<StreamingSessionState> = new Set(['FINISHED', 'CANCELLED', 'FAILED']);

/** The first error of a gateway result as the GraphQLError a client receives (code and message kept). */
export function gatewayError(errors: OperationResult['errors']): GraphQLError | null {
  const e = errors?.[0];
  if (!e) return null;
  const extensions = (e as { extensions?: Record<string, unknown> }).extensions ?? {};
  return new GraphQLError(e.message, { extensions: { ...extensions, code: extensions.code ?? 'INTERNAL_SERVER_ERROR' } });
}

interface SessionRecord { sessionId: string; state: StreamingSessionState; userId: string; endTime: string | null; failureReason: string | null }

const SESSION_CHECK = 'query StreamingSessionSubscriptionCheck($id: ID!) { streamingSession(id: $id) { sessionId state userId endTime failureReason } }';

export interface ResolverDeps {
  services: EdgeServices;
  hub: ChannelHub;
}

/**
 * The subscribe resolvers: each returns the source stream of one root field. Readability of a
 * session is decided by the sessions subgraph itself (`streamingSession` through the gateway, as the
 * subscriber), so the rules (other tenant: NOT_FOUND; another user's: FORBIDDEN without
 * admin:sessions:read) are the same as on every other read path.
 */
export function subscribeFieldResolver(deps: ResolverDeps): GraphQLFieldResolver<unknown, SubscriptionContext> {
  return async (_root, args: Record<string, unknown>, ctx, info) => {
    switch (info.fieldName) {
      case 'streamingSessionEvents': return sessionEvents(deps, ctx.identity, String(args.sessionId));
      case 'streamingSessionLifecycle': return lifecycle(deps, ctx.identity, args.scope === 'TENANT' ? 'TENANT' : 'OWN');
      default: throw appError('BAD_USER_INPUT', `Subscription field ${info.fieldName} is not served by this edge`);
    }
  };
}

async function listenOrUnavailable(stream: EventStream, hub: ChannelHub, channel: string): Promise<void> {
  try {
    await stream.listen(hub, channel);
  } catch {
    throw unavailable('The event bus is unavailable; try again shortly');
  }
}

async function sessionEvents(deps: ResolverDeps, identity: SubscriptionContext['identity'], rawId: string) {
  // sessions are stored (and their channels named) by lower-case UUID; anything else cannot exist,
  // and is not worth a Redis channel
  if (!isUuid(rawId)) throw notFound('Streaming session');
  const sessionId = rawId.toLowerCase();
  const stream = new EventStream({
    // the channel is per session, whose tenant was checked below; the tenant test is a second lock
    accept: (e) => e.sessionId === sessionId && e.tenantId === identity.tenantId,
    completeOnEnded: true,
  });
  // Listen first, check second: an ENDED published between the check and the SUBSCRIBE would
  // otherwise be lost and the subscriber left waiting for an end that already happened. Events that
  // arrive during the check wait in the queue and are dropped if the check fails.
  await listenOrUnavailable(stream, deps.hub, sessionChannel(sessionId));
  try {
    const r = await deps.services.execute({ query: SESSION_CHECK, variables: { id: sessionId } }, identity);
    const err = gatewayError(r.errors);
    if (err) throw err;
    const record = r.data?.streamingSession as SessionRecord | null | undefined;
    if (!record) throw notFound('Streaming session');
    if (TERMINAL.has(record.state)) {
      // a late subscriber: the one event it can still get is the end, built from the record
      void stream.return();
      return fixedStream([{
        type: 'ENDED', sessionId, tenantId: identity.tenantId, userId: record.userId,
        at: record.endTime ?? new Date().toISOString(), state: record.state, failureReason: record.failureReason,
      }]);
    }
    return stream;
  } catch (e) {
    void stream.return();
    throw e;
  }
}

async function lifecycle(deps: ResolverDeps, identity: SubscriptionContext['identity'], scope: 'OWN' | 'TENANT') {
  if (scope === 'TENANT' && !identity.scopes.includes(SCOPES.sessionsAdminRead)) throw forbidden(`Missing scope: ${SCOPES.sessionsAdminRead}`);
  const stream = new EventStream({
    // the tenant channel carries every user's STARTED/ENDED; OWN narrows it to the subscriber's
    accept: (e) => (e.type === 'STARTED' || e.type === 'ENDED') && e.tenantId === identity.tenantId
      && (scope === 'TENANT' || e.userId === identity.userId),
    completeOnEnded: false,
  });
  await listenOrUnavailable(stream, deps.hub, tenantSessionsChannel(identity.tenantId));
  return stream;
}

/**
 * Resolves every field of an event. The event is the root value of each execution, so the root
 * field returns it; event properties are read by name; `session` is fetched through the gateway.
 */
export function fieldResolver(deps: ResolverDeps): GraphQLFieldResolver<unknown, SubscriptionContext> {
  return (source, args, ctx, info) => {
    if (info.parentType === info.schema.getSubscriptionType()) return source;
    if (isRemote(source)) return source[String(info.path.key)];
    if (info.parentType.name === 'StreamingSessionEvent' && info.fieldName === 'session') {
      return resolveSession(deps, source as StreamingSessionEvent, ctx, info);
    }
    return defaultFieldResolver(source, args, ctx, info);
  };
}

async function resolveSession(deps: ResolverDeps, event: StreamingSessionEvent, ctx: SubscriptionContext, info: Parameters<GraphQLFieldResolver<unknown, unknown>>[3]) {
  const q = sessionQueryFor(info);
  const r = await deps.services.execute({ query: q.query, variables: sessionQueryVariables(q, info, event.sessionId) }, ctx.identity);
  const session = r.data?.streamingSession ?? null;
  // a session that cannot be read (deleted meanwhile, say) is a field error; `session` is nullable
  // and the rest of the event is still delivered
  const err = gatewayError(r.errors);
  if (err && session === null) throw err;
  markRemote(session);
  return session;
}
