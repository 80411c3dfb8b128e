import fs from 'node:fs';
import { ApolloGateway, RemoteGraphQLDataSource, type GraphQLDataSource } from '@apollo/gateway';
import { IDENTITY_HEADER, IdentityVerifier, type SubgraphDefinition } from '@voxgate/kit';
import { fileURLToPath } from 'node:url';
import type { EdgeContext } from './context';
import { VerifiedLocalDataSource } from './local-data-source';

export const SUPERGRAPH_PATH = fileURLToPath(new URL('../../schema/supergraph.graphql', import.meta.url));

/** Remote subgraph over keep-alive HTTP, carrying the signed identity. */
class SignedRemoteDataSource extends RemoteGraphQLDataSource<EdgeContext> {
  override async willSendRequest({ request, context }: Parameters<NonNullable<RemoteGraphQLDataSource<EdgeContext>['willSendRequest']>>[0]): Promise<void> {
    if ('signedIdentity' in context && typeof context.signedIdentity === 'function') {
      request.http?.headers.set(IDENTITY_HEADER, await context.signedIdentity());
    }
  }
}

export type SubgraphTargets =
  | { mode: 'single'; subgraphs: SubgraphDefinition[]; verifier: IdentityVerifier }
  | { mode: 'distributed'; urls: Record<string, string> };

export function createGateway(targets: SubgraphTargets): ApolloGateway {
  const supergraphSdl = fs.readFileSync(SUPERGRAPH_PATH, 'utf8');
  return new ApolloGateway({
    supergraphSdl,
    buildService: ({ name, url }): GraphQLDataSource<EdgeContext> => {
      if (targets.mode === 'single') {
        const subgraph = targets.subgraphs.find((s) => s.name.toUpperCase() === name.toUpperCase() || s.name === name);
        if (!subgraph) throw new Error(`no in-process subgraph named ${name}`);
        return new VerifiedLocalDataSource(subgraph, targets.verifier);
      }
      const target = targets.urls[name.toLowerCase()] ?? url;
      if (!target) throw new Error(`no URL for subgraph ${name}`);
      // Node's fetch (undici) pools keep-alive connections per origin
      return new SignedRemoteDataSource({ url: target, fetcher: fetch as never });
    },
  });
}
