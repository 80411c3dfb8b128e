import {
  getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType,
  Kind, parse, typeFromAST,
  type FragmentDefinitionNode, type GraphQLInputType, type GraphQLOutputType, type GraphQLSchema, type OperationDefinitionNode,
  type SelectionNode, type SelectionSetNode, type GraphQLObjectType,
} from 'graphql';
import { renameSchemaGroups } from './rename';
import type { Route } from './route';

type JsonSchema = Record<string, unknown>;

const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' }, ID: { type: 'string' }, Int: { type: 'integer' }, Float: { type: 'number' }, Boolean: { type: 'boolean' },
};

function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { oneOf: [schema, { type: 'null' }] };
}

/**
 * Response and request schemas are derived from the GraphQL operation each route runs, so the
 * OpenAPI document cannot drift from what the facade actually answers.
 */
class SchemaWriter {
  readonly components: Record<string, JsonSchema> = {};
  constructor(private readonly schema: GraphQLSchema) {}

  input(type: GraphQLInputType): JsonSchema {
    const inner = (t: GraphQLInputType): JsonSchema => {
      const n = getNullableType(t);
      if (isListType(n)) return { type: 'array', items: this.input(n.ofType) };
      if (isScalarType(n)) return SCALARS[n.name] ?? {};
      if (isEnumType(n)) return { type: 'string', enum: n.getValues().map((v) => v.value as string) };
      if (isInputObjectType(n)) {
        if (!this.components[n.name]) {
          this.components[n.name] = {};
          const properties: Record<string, JsonSchema> = {};
          const required: string[] = [];
          for (const f of Object.values(n.getFields())) {
            properties[f.name] = { ...this.input(f.type), ...(f.description ? { description: f.description } : {}) };
            if (isNonNullType(f.type) && f.defaultValue === undefined) required.push(f.name);
          }
          this.components[n.name] = { type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) };
        }
        return { $ref: `#/components/schemas/${n.name}` };
      }
      return {};
    };
    const s = inner(type);
    return isNonNullType(type) ? s : nullable(s);
  }

  /** Replaces component references by their definitions (inputs are not recursive here). */
  inline(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map((s) => this.inline(s));
    if (schema === null || typeof schema !== 'object') return schema;
    const ref = (schema as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') return this.inline(this.components[ref.replace('#/components/schemas/', '')] ?? {});
    return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, this.inline(v)]));
  }

  output(type: GraphQLOutputType, selection: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
    const n = getNullableType(type);
    let s: JsonSchema;
    if (isListType(n)) s = { type: 'array', items: this.output(n.ofType, selection, fragments) };
    else if (isScalarType(n)) s = SCALARS[n.name] ?? {};
    else if (isEnumType(n)) s = { type: 'string', enum: n.getValues().map((v) => v.value as string) };
    else if (isObjectType(n)) s = this.object(n, selection, fragments);
    else s = {};
    return isNonNullType(type) ? s : nullable(s);
  }

  private object(type: GraphQLObjectType, selection: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const visit = (set: SelectionSetNode | undefined) => {
      for (const sel of set?.selections ?? []) {
        if (sel.kind === Kind.FIELD) {
          const field = type.getFields()[sel.name.value];
          if (!field) continue;
          const key = sel.alias?.value ?? sel.name.value;
          properties[key] = { ...this.output(field.type, sel.selectionSet, fragments), ...(field.description ? { description: field.description } : {}) };
          required.push(key);
        } else if (sel.kind === Kind.FRAGMENT_SPREAD) {
          visit(fragments.get(sel.name.value)?.selectionSet);
        } else {
          visit(sel.selectionSet);
        }
      }
    };
    visit(selection);
    return { type: 'object', properties, required };
  }
}

const problemSchema: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem details',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' },
    instance: { type: 'string' }, code: { type: 'string', description: 'the error vocabulary code, e.g. NOT_FOUND' },
    errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid request', 401: 'Missing or invalid credentials', 403: 'Insufficient scope or not allowed', 404: 'Not found',
  409: 'Conflict', 410: 'Gone', 429: 'Rate limit or quota exceeded', 503: 'Upstream unavailable',
};

const openApiPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export function buildOpenApi(routes: Route[], schema: GraphQLSchema, info: { version: string }): JsonSchema {
  const writer = new SchemaWriter(schema);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const doc = parse(route.document);
    const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    if (!op) throw new Error(`route ${route.operationId} has no operation`);
    const fragments = new Map(doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
    const varType = (name: string) => {
      const def = op.variableDefinitions?.find((v) => v.variable.name.value === name);
      return def ? (typeFromAST(schema, def.type as never) as GraphQLInputType | undefined) : undefined;
    };
    const parameters: JsonSchema[] = [];
    for (const [param, variable] of Object.entries(route.params ?? {})) {
      const t = varType(variable);
      parameters.push({ name: param, in: 'path', required: true, schema: t ? writer.input(getNullableType(t) as GraphQLInputType) : { type: 'string' } });
    }
    for (const [name, q] of Object.entries(route.query ?? {})) {
      parameters.push({ name, in: 'query', required: false, ...(q.description ? { description: q.description } : {}), schema: { type: q.type, ...(q.default !== undefined ? { default: q.default } : {}) } });
    }
    const responses: Record<string, JsonSchema> = {};
    const rootType = op.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
    if (route.result && rootType) {
      // follow the dotted result path through the selection sets and the schema's types
      let parentType: GraphQLObjectType = rootType;
      let selectionSet: SelectionSetNode | undefined = op.selectionSet;
      let fieldType: GraphQLOutputType | undefined;
      for (const name of route.result.split('.')) {
        const sel: SelectionNode | undefined = selectionSet?.selections.find((s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === name);
        const field = sel && sel.kind === Kind.FIELD ? parentType.getFields()[sel.name.value] : undefined;
        if (!field || !sel || sel.kind !== Kind.FIELD) throw new Error(`route ${route.operationId}: result ${route.result} not selected`);
        fieldType = field.type;
        selectionSet = sel.selectionSet;
        const named = getNullableType(field.type);
        const inner = isListType(named) ? getNullableType(named.ofType) : named;
        if (isObjectType(inner)) parentType = inner;
      }
      if (!fieldType) throw new Error(`route ${route.operationId}: empty result path`);
      const schemaOut = writer.output(getNullableType(fieldType) as GraphQLOutputType, selectionSet, fragments);
      if (route.binary) {
        responses[String(route.status)] = { description: route.binary.description, content: { [route.binary.contentType]: { schema: { type: 'string', format: 'binary' } } } };
      } else responses[String(route.status)] = {
        description: 'Success',
        content: { 'application/json': { schema: route.renameGroups ? renameSchemaGroups(schemaOut) : schemaOut } },
      };
      if (route.emptyStatus) responses[String(route.emptyStatus)] = { description: 'Nothing to return (no body)' };
      if (route.createdWhen) responses['201'] = { ...responses[String(route.status)], description: 'Created' };
    } else {
      responses[String(route.status)] = { description: 'Success, no body' };
    }
    for (const status of route.errors) {
      responses[String(status)] = { description: ERROR_TEXT[status] ?? 'Error', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
    }
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      ...(route.deprecated ? { deprecated: true } : {}),
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
      security: route.public ? [] : [{ apiKey: [] }, { bearer: [] }],
      ...(parameters.length ? { parameters } : {}),
      responses,
    };
    if (route.body) {
      const t = varType(route.body);
      let bodySchema: unknown = t ? writer.input(getNullableType(t) as GraphQLInputType) : { type: 'object' };
      // renamed documents cannot share the GraphQL-named components: inline them, renamed
      if (route.renameGroups) bodySchema = renameSchemaGroups(writer.inline(bodySchema));
      operation.requestBody = { required: true, content: { 'application/json': { schema: bodySchema } } };
    }
    if (route.public) {
      operation.parameters = [...(parameters as JsonSchema[]), { name: 'X-Tenant', in: 'header', required: false, description: 'tenant name; defaults to "system"', schema: { type: 'string' } }];
    }
    (paths[`/api/v1${openApiPath(route.path)}`] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Voxgate API', version: info.version, description: 'REST facade over the Voxgate GraphQL gateway. Errors are RFC 9457 problem details.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { ...writer.components, Problem: problemSchema },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}
