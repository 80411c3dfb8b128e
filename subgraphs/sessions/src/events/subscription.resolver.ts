import { SCOPES, appError } from '@voxgate/kit';
import { Arg, Authorized, ID, Resolver, Root, Subscription } from 'type-graphql';
import { StreamingSessionScope } from '../sessions/session.types';
import { StreamingSessionEvent } from './event.types';

/**
 * The subscription fields, declared here so that they are part of the composed schema. They are
 * executed by the edge (gateway/src/subscriptions), which listens to the events this domain
 * publishes on Redis (kit events.ts); the gateway cannot run subscriptions through subgraphs.
 */
const servedByTheEdge = (): never => {
  throw appError('INTERNAL_SERVER_ERROR', 'subscriptions are served by the edge over graphql-ws');
};

@Resolver()
export class StreamingSessionSubscriptionResolver {
  @Authorized(SCOPES.sessionsRead)
  @Subscription(() => StreamingSessionEvent, {
    subscribe: servedByTheEdge,
    description: 'Partial results, finalized segments and the end of one session the caller may read (graphql-ws on /graphql).',
  })
  streamingSessionEvents(@Root() event: StreamingSessionEvent, @Arg('sessionId', () => ID) _sessionId: string): StreamingSessionEvent {
    return event;
  }

  @Authorized(SCOPES.sessionsRead)
  @Subscription(() => StreamingSessionEvent, {
    subscribe: servedByTheEdge,
    description: "STARTED and ENDED of the caller's sessions, or with scope TENANT (admin:sessions:read) of every session of the tenant: dashboards.",
  })
  streamingSessionLifecycle(
    @Root() event: StreamingSessionEvent,
    @Arg('scope', () => StreamingSessionScope, { defaultValue: StreamingSessionScope.OWN }) _scope: StreamingSessionScope,
  ): StreamingSessionEvent {
    return event;
  }
}
