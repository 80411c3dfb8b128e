import 'reflect-metadata';
import { appError, buildFederatedSchema, type SubgraphDefinition } from '@voxgate/kit';
import { createSessionsContext, type SessionsContext, type SessionsDeps } from './context';
import { StreamingSessionSubscriptionResolver } from './events/subscription.resolver';
import { StreamingSessionResolver } from './sessions/session.resolvers';
import { SessionsTenant, SessionsTenantResolver } from './entities';

export type { SessionsDeps } from './context';
export { recordingKey } from './sessions/mappers';

export async function sessionsSubgraph(deps: SessionsDeps): Promise<SubgraphDefinition<SessionsContext>> {
  const schema = await buildFederatedSchema(
    {
      resolvers: [StreamingSessionResolver, StreamingSessionSubscriptionResolver, SessionsTenantResolver],
      orphanedTypes: [SessionsTenant],
      // type-graphql insists on a pub/sub when a schema has subscriptions; this one is never used
      pubSub: { publish: () => undefined, subscribe: () => { throw appError('INTERNAL_SERVER_ERROR', 'subscriptions are served by the edge'); } },
    },
    { Tenant: { __resolveReference: ((ref: { id: string }) => ref) as never } },
  );
  return { name: 'sessions', schema, createContext: (identity) => createSessionsContext(deps, identity) };
}
