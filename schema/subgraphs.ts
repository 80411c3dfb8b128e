import type { SubgraphDefinition } from '@voxgate/kit';
import { tenancySubgraph, type TenancyDeps } from '@voxgate/tenancy';

/** Every domain subgraph of the platform, in composition order. */
export type SubgraphDeps = TenancyDeps;

export async function buildSubgraphs(deps: SubgraphDeps): Promise<SubgraphDefinition[]> {
  return [(await tenancySubgraph(deps)) as unknown as SubgraphDefinition];
}
