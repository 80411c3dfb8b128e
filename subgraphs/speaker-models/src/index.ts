import 'reflect-metadata';
import { buildFederatedSchema, type SubgraphDefinition } from '@voxgate/kit';
import { AsrAliasResolver, SentverAliasResolver, SpeakerEmbeddingAliasResolver } from './aliases/alias.resolvers';
import { createSpeakerModelsContext, type SpeakerModelsContext, type SpeakerModelsDeps } from './context';
import { SpeakerModelsTenant, SpeakerModelsTenantResolver } from './entities';
import { ConnectionTestResolver } from './models/connection-test';
import { AsrModelResolver, SentverModelResolver, SpeakerEmbeddingModelResolver } from './models/model.resolvers';
import { AliasDiscoveryResolver } from './resolution/discovery.resolver';

export type { SpeakerModelsDeps } from './context';
export type { AliasRow, ModelFamily, ModelRow, ModelStatus } from './db/schema';
export { AliasResolution, usable, type AliasDeprecation, type Resolution } from './resolution/alias-resolution';
export { engineClientConfig } from './models/engine-config';
export { ASR_REFERENCE_ALIAS, ASR_REFERENCE_MODEL, seedAsrReferenceModels, type SeedingDeps } from './seeding';

export async function speakerModelsSubgraph(deps: SpeakerModelsDeps): Promise<SubgraphDefinition<SpeakerModelsContext>> {
  const schema = await buildFederatedSchema(
    {
      resolvers: [
        SentverModelResolver, SpeakerEmbeddingModelResolver, AsrModelResolver, SentverAliasResolver, SpeakerEmbeddingAliasResolver,
        AsrAliasResolver, AliasDiscoveryResolver, ConnectionTestResolver, SpeakerModelsTenantResolver,
      ],
      orphanedTypes: [SpeakerModelsTenant],
    },
    { Tenant: { __resolveReference: ((ref: { id: string }) => ref) as never } },
  );
  return { name: 'speaker-models', schema, createContext: (identity) => createSpeakerModelsContext(deps, identity) };
}
