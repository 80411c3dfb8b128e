import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import type { GraphQLSchema } from 'graphql';
import { gql } from 'graphql-tag';
import { buildSchema, createResolversMap, type AuthChecker, type BuildSchemaOptions } from 'type-graphql';
import { forbidden, unauthenticated } from './errors';
import type { Identity } from './identity';
import type { FixedWindowRateLimiter } from './limits/rate-limiter';

/** What every subgraph resolver can rely on: a verified identity forwarded by the edge. */
export interface BaseContext {
  identity: Identity;
  /** per-minute operation limits (see limits/enforce.ts); null when RATE_LIMITS=off */
  limiter: FixedWindowRateLimiter | null;
}

/** A domain subgraph as the gateway and the standalone server see it. */
export interface SubgraphDefinition<Ctx extends BaseContext = BaseContext> {
  name: string;
  schema: GraphQLSchema;
  createContext(identity: Identity): Ctx;
}

/**
 * `@Authorized()` requires a signed-in caller; `@Authorized('scope', ...)` requires every listed
 * scope among the caller's effective scopes (for API keys: key scopes ∩ role scopes).
 */
export const scopeAuthChecker: AuthChecker<BaseContext> = ({ context }, required) => {
  const { identity } = context;
  if (identity.kind !== 'user') throw unauthenticated();
  const missing = required.filter((s) => !identity.scopes.includes(s));
  if (missing.length > 0) throw forbidden(`Missing scope: ${missing.join(', ')}`);
  return true;
};

type ReferenceResolvers = Record<string, { __resolveReference: (ref: never, ctx: never) => unknown }>;

/** type-graphql schema turned into an Apollo Federation 2 subgraph (after type-graphql's federation example). */
export async function buildFederatedSchema(
  options: Omit<BuildSchemaOptions, 'skipCheck' | 'authChecker'>,
  referenceResolvers: ReferenceResolvers = {},
): Promise<GraphQLSchema> {
  const schema = await buildSchema({ ...options, authChecker: scopeAuthChecker, skipCheck: true, validate: false });
  const resolvers = createResolversMap(schema) as GraphQLResolverMap<unknown>;
  for (const [typeName, ref] of Object.entries(referenceResolvers)) {
    resolvers[typeName] = { ...(resolvers[typeName] as object), ...ref } as GraphQLResolverMap<unknown>[string];
  }
  return buildSubgraphSchema([{
    typeDefs: gql`
      extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable", "@external", "@requires", "@provides"])
      ${printSchemaWithDirectives(schema)}
    `,
    resolvers,
  }]);
}
