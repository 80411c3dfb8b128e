import 'reflect-metadata';
import { buildFederatedSchema, type SubgraphDefinition } from '@voxgate/kit';
import { SentverAliasResolver, SpeakerEmbeddingAliasResolver } from './aliases/alias.resolvers';
import { createSpeakerModelsContext, type SpeakerModelsContext, type SpeakerModelsDeps } from './context';
import { SpeakerModelsTenant, SpeakerModelsTenantResolver } from './entities';
import { ConnectionTestResolver } from './models/connection-test';
import { SentverModelResolver, SpeakerEmbeddingModelResolver } from './models/model.resolvers';
import { AliasDiscoveryResolver } from './resolution/discovery.resolver';

export type { SpeakerModelsDeps } from './context';
export { AliasResolution, type Resolution } from './resolution/alias-resolution';

export async function speakerModelsSubgraph(deps: SpeakerModelsDeps): Promise<SubgraphDefinition<SpeakerModelsContext>> {
  const schema = await buildFederatedSchema(
    {
      resolvers: [
        SentverModelResolver, SpeakerEmbeddingModelResolver, SentverAliasResolver, SpeakerEmbeddingAliasResolver,
        AliasDiscoveryResolver, ConnectionTestResolver, SpeakerModelsTenantResolver,
      ],
      orphanedTypes: [SpeakerModelsTenant],
    },
    { Tenant: { __resolveReference: ((ref: { id: string }) => ref) as never } },
  );
  return { name: 'speaker-models', schema, createContext: (identity) => createSpeakerModelsContext(deps, identity) };
}
