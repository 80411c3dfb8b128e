/**
 * GraphQL names cannot hold hyphens; the spec's limit documents use `speech-service`,
 * `speaker-service` and `text-service`. Routes marked `renameGroups` translate both ways.
 */
const TO_REST: Record<string, string> = {
  speechService: 'speech-service',
  speakerService: 'speaker-service',
  textService: 'text-service',
};
const TO_GRAPH: Record<string, string> = Object.fromEntries(Object.entries(TO_REST).map(([g, r]) => [r, g]));

function renameDeep(value: unknown, map: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameDeep(v, map));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [map[k] ?? k, renameDeep(v, map)]));
}

export const groupsToRest = (value: unknown) => renameDeep(value, TO_REST);

/** REST bodies speak the spec's keys only: a GraphQL-style group key is named back to the client. */
export function graphStyleKey(value: unknown): string | null {
  if (Array.isArray(value)) {
    for (const v of value) { const k = graphStyleKey(v); if (k) return k; }
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    if (k in TO_REST) return k;
    const inner = graphStyleKey(v);
    if (inner) return inner;
  }
  return null;
}
export const groupsToGraph = (value: unknown) => renameDeep(value, TO_GRAPH);

/** The same renaming applied to a JSON schema: property names and `required` entries. */
export function renameSchemaGroups(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(renameSchemaGroups);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [TO_REST[p] ?? p, renameSchemaGroups(s)]));
    } else if (k === 'required' && Array.isArray(v)) {
      out[k] = v.map((p: unknown) => (typeof p === 'string' ? TO_REST[p] ?? p : p));
    } else {
      out[k] = renameSchemaGroups(v);
    }
  }
  return out;
}
