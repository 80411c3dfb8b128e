import { Kind, print, visit, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo, type SelectionNode } from 'graphql';

/** Our variable in the generated query; unusual enough not to collide with a client's own variables. */
const SESSION_ID_VAR = 'voxgateEventSessionId';

export interface SessionQuery {
  query: string;
  /** the client's operation variables the selection uses (directives such as @include(if: $x)) */
  variableNames: string[];
}

// Built once per field node of a subscription document, not per event: the AST nodes are the same
// objects for every event of a subscription, so a WeakMap keyed by the first node is exact.
const cache = new WeakMap<FieldNode, SessionQuery>();

/**
 * `StreamingSessionEvent.session` is the session record read through the gateway, as the subscriber
 * would read it with `streamingSession(id)`: the same authorization, the same subgraph, no copy of
 * its rules here. The query selects exactly what the client selected under `session` (all merged
 * field nodes, the fragments they spread, transitively, and the variable definitions they use).
 */
export function sessionQueryFor(info: GraphQLResolveInfo): SessionQuery {
  const first = info.fieldNodes[0];
  if (!first) throw new Error('no field node');
  const cached = cache.get(first);
  if (cached) return cached;

  const selections: SelectionNode[] = info.fieldNodes.flatMap((n) => n.selectionSet?.selections ?? []);
  const fragmentNames = new Set<string>();
  const variableNames = new Set<string>();
  const collect = (node: SelectionNode | FragmentDefinitionNode) => {
    visit(node, {
      FragmentSpread(spread) {
        const name = spread.name.value;
        if (fragmentNames.has(name)) return;
        fragmentNames.add(name);
        const def = info.fragments[name];
        if (def) collect(def);
      },
      Variable(v) { variableNames.add(v.name.value); },
    });
  };
  for (const s of selections) collect(s);

  const definitions = (info.operation.variableDefinitions ?? []).filter((d) => variableNames.has(d.variable.name.value));
  const varDecls = [`$${SESSION_ID_VAR}: ID!`, ...definitions.map((d) => print(d))].join(', ');
  const body = selections.map((s) => print(s)).join(' ');
  const fragments = [...fragmentNames].map((n) => info.fragments[n]).filter((d): d is FragmentDefinitionNode => d?.kind === Kind.FRAGMENT_DEFINITION).map((d) => print(d));
  const query = [`query StreamingSessionEventSession(${varDecls}) { streamingSession(id: $${SESSION_ID_VAR}) { ${body} } }`, ...fragments].join('\n');
  const built = { query, variableNames: [...variableNames] };
  cache.set(first, built);
  return built;
}

export function sessionQueryVariables(q: SessionQuery, info: GraphQLResolveInfo, sessionId: string): Record<string, unknown> {
  const vars: Record<string, unknown> = { [SESSION_ID_VAR]: sessionId };
  for (const name of q.variableNames) vars[name] = info.variableValues[name];
  return vars;
}

/**
 * Objects that came back from the gateway already shaped by the client's selection: their keys are
 * response keys (aliases), so the local field resolver reads them by `info.path.key`, not by field
 * name. Tracked by identity; entries go away with the objects.
 */
const remoteObjects = new WeakSet<object>();

export function markRemote(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (remoteObjects.has(value)) return;
  remoteObjects.add(value);
  for (const v of Array.isArray(value) ? value : Object.values(value)) markRemote(v);
}

export function isRemote(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && remoteObjects.has(value);
}
