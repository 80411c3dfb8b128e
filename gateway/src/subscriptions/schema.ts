import { buildASTSchema, parse, printSchema, type GraphQLSchema } from 'graphql';

const copies = new WeakMap<GraphQLSchema, GraphQLSchema>();

/**
 * A resolver-free copy of the gateway's API schema, to execute subscriptions on.
 *
 * The gateway's schema object cannot be used as is: Apollo Server instruments it in place (every
 * field gets a `resolve` wrapper that falls back to graphql-js's default resolver), and graphql-js
 * prefers a field's own `resolve` to the `fieldResolver` passed to `subscribe`, so ours would never
 * run. Rebuilding from the printed SDL loses nothing execution needs here (enum values are their
 * names, the custom scalars are pass-through in the API schema too). Built once per schema version.
 */
export function executableSchema(api: GraphQLSchema): GraphQLSchema {
  let copy = copies.get(api);
  if (!copy) {
    copy = buildASTSchema(parse(printSchema(api)), { assumeValidSDL: true });
    copies.set(api, copy);
  }
  return copy;
}
