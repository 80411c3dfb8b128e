import type { SubgraphDefinition } from '@voxgate/kit';
import { billingSubgraph, type BillingDeps } from '@voxgate/billing';
import { sessionsSubgraph, type SessionsDeps } from '@voxgate/sessions';
import { speakerModelsSubgraph, type SpeakerModelsDeps } from '@voxgate/speaker-models';
import { tenancySubgraph, type TenancyDeps } from '@voxgate/tenancy';

/** Every domain subgraph of the platform, in composition order. */
export type SubgraphDeps = TenancyDeps & BillingDeps & SpeakerModelsDeps & SessionsDeps;

export async function buildSubgraphs(deps: SubgraphDeps): Promise<SubgraphDefinition[]> {
  return [
    (await tenancySubgraph(deps)) as unknown as SubgraphDefinition,
    (await billingSubgraph(deps)) as unknown as SubgraphDefinition,
    (await speakerModelsSubgraph(deps)) as unknown as SubgraphDefinition,
    (await sessionsSubgraph(deps)) as unknown as SubgraphDefinition,
  ];
}
