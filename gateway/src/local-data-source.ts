import { LocalGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { execute, parse, validate, type DocumentNode, type GraphQLError } from 'graphql';
import { IdentityVerifier, unauthenticated, type SubgraphDefinition } from '@voxgate/kit';
import type { EdgeContext } from './context';

type GatewayGraphQLResponse = Awaited<ReturnType<LocalGraphQLDataSource['process']>>;

/**
 * In-process subgraph call. The gateway still hands over a signed identity, verified here exactly
 * as the HTTP subgraph server does, so both deployment modes enforce the same rule.
 */
export class VerifiedLocalDataSource extends LocalGraphQLDataSource<EdgeContext> {
  // the query planner sends the same few documents over and over; parse and validate each once
  private readonly documents = new Map<string, { doc: DocumentNode } | { errors: readonly GraphQLError[] }>();

  constructor(
    private readonly subgraph: SubgraphDefinition,
    private readonly verifier: IdentityVerifier,
  ) {
    super(subgraph.schema);
  }

  override async process(options: GraphQLDataSourceProcessOptions<EdgeContext>): Promise<GatewayGraphQLResponse> {
    const { request } = options;
    const token = 'context' in options && options.context.signedIdentity ? await options.context.signedIdentity() : null;
    const identity = await this.verifier.verify(token);
    if (!identity) return { errors: [unauthenticated('Missing or invalid internal identity')] };
    const source = request.query ?? '';
    let entry = this.documents.get(source);
    if (!entry) {
      const doc = parse(source);
      const errors = validate(this.subgraph.schema, doc);
      entry = errors.length ? { errors } : { doc };
      if (this.documents.size > 5_000) this.documents.clear();
      this.documents.set(source, entry);
    }
    if ('errors' in entry) return { errors: entry.errors };
    const result = await execute({
      schema: this.subgraph.schema,
      document: entry.doc,
      variableValues: request.variables ?? {},
      operationName: request.operationName ?? null,
      contextValue: this.subgraph.createContext(identity),
    });
    return result as GatewayGraphQLResponse;
  }
}
