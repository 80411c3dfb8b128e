import { SCOPES, type Scope } from '@voxgate/kit';
import type { Route } from '../route';

const THRESHOLDS = 'thresholdDefaults { strictAcceptThreshold strictReviewThreshold balancedAcceptThreshold balancedReviewThreshold lenientAcceptThreshold lenientReviewThreshold }';
const SENTVER_MODEL = `name displayName description status statusMessage deprecatedAt inactiveAt supportedLocales maxExpectedTextLength grpcTarget grpcTlsMode grpcAuthority grpcDeadlineMs grpcMaxInboundMessageBytes grpcMetadata ${THRESHOLDS} createdAt updatedAt retainedEnrollmentCount retainedVerificationCount`;
const EMBEDDING_MODEL = `name displayName description status statusMessage deprecatedAt inactiveAt supportedLocales grpc { target tlsMode authority deadlineMs maxInboundMessageBytes metadata } createdAt updatedAt ${THRESHOLDS} activeVoicePrintCount defaultVoicePrintSpeakerCount`;
const ASR_MODEL = 'name displayName description status statusMessage deprecatedAt inactiveAt supportedLocales grpcTarget grpcTlsMode grpcAuthority grpcDeadlineMs grpcMaxInboundMessageBytes grpcMetadata createdAt updatedAt';
const ALIAS_COMMON = 'alias type displayName description resolvedModel isDefault deprecated deprecationDate sunsetDate deprecationMessage minHierarchyOrder createdAt updatedAt';
const RESOLUTION = 'requestedAlias alias resolvedModel usedFallback deprecated deprecationDate sunsetDate deprecationMessage';
const OPTION = 'alias type displayName description isDefault deprecated deprecationDate sunsetDate deprecationMessage supportedLocales';

interface Family {
  tag: string;
  admin: string;
  user: string;
  /** GraphQL names: model type prefix and operation stems */
  ops: { list: string; register: string; update: string; status: string; del: string; test: string; aliases: string; put: string; resolve: string; deprecate: string; undeprecate: string; delAlias: string; options: string; resolution: string };
  inputs: { register: string; update: string; status: string; alias: string; resolve: string };
  modelFields: string;
  aliasFields: string;
  /** `read`: the user-facing discovery scope of the family */
  scopes: { models: Scope; modelsDelete: Scope; aliases: Scope; aliasesDelete: Scope; read: Scope };
}

/** RFC 9745 `Deprecation: @<unix seconds>` and RFC 8594 `Sunset: <HTTP-date>` for an alias in use. */
function deprecationHeaders(v: Record<string, unknown>): Record<string, string> {
  const h: Record<string, string> = {};
  // a future deprecation date is announced too (RFC 9745 allows it)
  if (v.deprecated === true || typeof v.deprecationDate === 'string') {
    const at = typeof v.deprecationDate === 'string' ? Date.parse(v.deprecationDate) : Date.now();
    h.Deprecation = `@${Math.floor(at / 1000)}`;
  }
  if (typeof v.sunsetDate === 'string') h.Sunset = new Date(v.sunsetDate).toUTCString();
  return h;
}

/** The eleven administration paths (plus a connection test) and the user-facing discovery, per family. */
function familyRoutes(f: Family): Route[] {
  const m = `${f.admin}/models`;
  const a = `${f.admin}/model-aliases`;
  const name = { name: 'name' };
  const alias = { alias: 'alias' };
  return [
    { method: 'get', path: m, operationId: f.ops.list, tag: f.tag, scope: f.scopes.models, summary: 'List the concrete models of the tenant',
      document: `query { ${f.ops.list} { ${f.modelFields} } }`, result: f.ops.list, status: 200, errors: [401, 403] },
    { method: 'post', path: m, operationId: f.ops.register, tag: f.tag, scope: f.scopes.models, summary: 'Register a model (409 when the name is taken)',
      document: `mutation ($input: ${f.inputs.register}!) { ${f.ops.register}(input: $input) { ${f.modelFields} } }`,
      body: 'input', result: f.ops.register, status: 201, errors: [400, 401, 403, 409] },
    { method: 'put', path: `${m}/:name`, operationId: f.ops.update, tag: f.tag, scope: f.scopes.models,
      summary: 'Replace the editable configuration (omitted nullable fields are cleared; name and status are not accepted)',
      document: `mutation ($name: String!, $input: ${f.inputs.update}!) { ${f.ops.update}(name: $name, input: $input) { ${f.modelFields} } }`,
      params: name, body: 'input', result: f.ops.update, status: 200, errors: [400, 401, 403, 404] },
    { method: 'patch', path: `${m}/:name/status`, operationId: f.ops.status, tag: f.tag, scope: f.scopes.models, summary: 'Change the status',
      document: `mutation ($name: String!, $input: ${f.inputs.status}!) { ${f.ops.status}(name: $name, input: $input) { ${f.modelFields} } }`,
      params: name, body: 'input', result: f.ops.status, status: 200, errors: [400, 401, 403, 404] },
    { method: 'delete', path: `${m}/:name`, operationId: f.ops.del, tag: f.tag, scope: f.scopes.modelsDelete,
      summary: 'Delete a model (409 while an alias or a retained record references it)',
      document: `mutation ($name: String!) { ${f.ops.del}(name: $name) }`, params: name, status: 204, errors: [401, 403, 404, 409] },
    { method: 'post', path: `${m}/:name/test-connection`, operationId: f.ops.test, tag: f.tag, scope: f.scopes.models,
      summary: "Call the engine's Health method with the model's gRPC configuration",
      document: `mutation ($name: String!) { ${f.ops.test}(name: $name) { success status message latencyMs } }`,
      params: name, result: f.ops.test, status: 200, errors: [401, 403, 404] },
    { method: 'get', path: a, operationId: f.ops.aliases, tag: f.tag, scope: f.scopes.aliases, summary: 'All aliases of the tenant',
      document: `query { ${f.ops.aliases} { ${f.aliasFields} } }`, result: f.ops.aliases, status: 200, errors: [401, 403] },
    { method: 'put', path: `${a}/:alias`, operationId: f.ops.put, tag: f.tag, scope: f.scopes.aliases,
      summary: 'Create (201) or update (200) an alias; the first alias, or one marked isDefault, is the default; unsetting the default is 409',
      document: `mutation ($alias: String!, $input: ${f.inputs.alias}!) { ${f.ops.put}(alias: $alias, input: $input) { created alias { ${f.aliasFields} } } }`,
      params: alias, body: 'input', result: `${f.ops.put}.alias`, createdWhen: `${f.ops.put}.created`, status: 200, errors: [400, 401, 403, 409] },
    { method: 'put', path: `${a}/:alias/resolve`, operationId: f.ops.resolve, tag: f.tag, scope: f.scopes.aliases,
      summary: 'Change the resolved model; existing records keep their lineage',
      document: `mutation ($alias: String!, $input: ${f.inputs.resolve}!) { ${f.ops.resolve}(alias: $alias, input: $input) { ${f.aliasFields} } }`,
      params: alias, body: 'input', result: f.ops.resolve, status: 200, errors: [400, 401, 403, 404] },
    { method: 'put', path: `${a}/:alias/deprecate`, operationId: f.ops.deprecate, tag: f.tag, scope: f.scopes.aliases,
      summary: 'Deprecate, with optional dates and message',
      document: `mutation ($alias: String!, $input: DeprecateAliasInput!) { ${f.ops.deprecate}(alias: $alias, input: $input) { ${f.aliasFields} } }`,
      params: alias, body: 'input', result: f.ops.deprecate, status: 200, errors: [400, 401, 403, 404] },
    { method: 'put', path: `${a}/:alias/undeprecate`, operationId: f.ops.undeprecate, tag: f.tag, scope: f.scopes.aliases,
      summary: 'Clear the deprecated flag, dates and message',
      document: `mutation ($alias: String!) { ${f.ops.undeprecate}(alias: $alias) { ${f.aliasFields} } }`,
      params: alias, result: f.ops.undeprecate, status: 200, errors: [401, 403, 404] },
    { method: 'delete', path: `${a}/:alias`, operationId: f.ops.delAlias, tag: f.tag, scope: f.scopes.aliasesDelete,
      summary: 'Delete an alias; records made through it keep their lineage (409 for the default while other aliases exist)',
      document: `mutation ($alias: String!) { ${f.ops.delAlias}(alias: $alias) }`, params: alias, status: 204, errors: [401, 403, 404, 409] },
    { method: 'get', path: `${f.user}/model-aliases`, operationId: f.ops.options, tag: 'Model discovery', scope: f.scopes.read,
      summary: 'The aliases the caller may use (hidden below minHierarchyOrder, gone after sunset)',
      document: `query { ${f.ops.options} { ${OPTION} } }`, result: f.ops.options, status: 200, errors: [401, 403] },
    { method: 'get', path: `${f.user}/model-aliases/:alias`, operationId: f.ops.resolution, tag: 'Model discovery', scope: f.scopes.read,
      summary: 'What an alias resolves to now; Deprecation and Sunset headers while deprecated, 410 after its sunset',
      document: `query ($alias: String) { ${f.ops.resolution}(alias: $alias) { ${RESOLUTION} } }`,
      params: alias, result: f.ops.resolution, status: 200, errors: [401, 403, 404, 410, 503], headersFrom: deprecationHeaders },
  ];
}

export const speakerModelRoutes: Route[] = [
  ...familyRoutes({
    tag: 'Sentence-verification administration', admin: '/speech-services/admin/sentence-verification', user: '/speech-services/sentence-verification',
    ops: {
      list: 'sentverModels', register: 'registerSentverModel', update: 'updateSentverModel', status: 'updateSentverModelStatus', del: 'deleteSentverModel',
      test: 'testSentverModelConnection', aliases: 'sentverModelAliases', put: 'putSentverModelAlias', resolve: 'resolveSentverModelAlias',
      deprecate: 'deprecateSentverModelAlias', undeprecate: 'undeprecateSentverModelAlias', delAlias: 'deleteSentverModelAlias',
      options: 'sentverModelAliasOptions', resolution: 'sentverModelAliasResolution',
    },
    inputs: { register: 'SentverModelInput', update: 'UpdateSentverModelInput', status: 'UpdateSentverModelStatusInput', alias: 'SentverAliasInput', resolve: 'SentverAliasResolveInput' },
    modelFields: SENTVER_MODEL,
    aliasFields: `${ALIAS_COMMON} fallbackModel`,
    scopes: { models: SCOPES.sentverModelsWrite, modelsDelete: SCOPES.sentverModelsDelete, aliases: SCOPES.sentverAliasesWrite, aliasesDelete: SCOPES.sentverAliasesDelete, read: SCOPES.speakerModelsRead },
  }),
  ...familyRoutes({
    tag: 'Speaker-embedding administration', admin: '/speaker-services/admin/speaker-embeddings', user: '/speaker-services/speaker-embeddings',
    ops: {
      list: 'speakerEmbeddingModels', register: 'registerSpeakerEmbeddingModel', update: 'updateSpeakerEmbeddingModel', status: 'updateSpeakerEmbeddingModelStatus',
      del: 'deleteSpeakerEmbeddingModel', test: 'testSpeakerEmbeddingModelConnection', aliases: 'speakerEmbeddingModelAliases', put: 'putSpeakerEmbeddingModelAlias',
      resolve: 'resolveSpeakerEmbeddingModelAlias', deprecate: 'deprecateSpeakerEmbeddingModelAlias', undeprecate: 'undeprecateSpeakerEmbeddingModelAlias',
      delAlias: 'deleteSpeakerEmbeddingModelAlias', options: 'speakerEmbeddingModelAliasOptions', resolution: 'speakerEmbeddingModelAliasResolution',
    },
    inputs: { register: 'SpeakerEmbeddingModelInput', update: 'UpdateSpeakerEmbeddingModelInput', status: 'UpdateSpeakerEmbeddingModelStatusInput', alias: 'SpeakerEmbeddingAliasInput', resolve: 'SpeakerEmbeddingAliasResolveInput' },
    modelFields: EMBEDDING_MODEL,
    aliasFields: ALIAS_COMMON,
    scopes: { models: SCOPES.embeddingModelsWrite, modelsDelete: SCOPES.embeddingModelsDelete, aliases: SCOPES.embeddingAliasesWrite, aliasesDelete: SCOPES.embeddingAliasesDelete, read: SCOPES.speakerModelsRead },
  }),
  // ours (the spec lists no ASR model paths): the sentver family's sub-paths, discovery directly
  // under /speech-services because recognition is that service's default model family
  ...familyRoutes({
    tag: 'Speech-recognition administration', admin: '/speech-services/admin/asr', user: '/speech-services',
    ops: {
      list: 'asrModels', register: 'registerAsrModel', update: 'updateAsrModel', status: 'updateAsrModelStatus', del: 'deleteAsrModel',
      test: 'testAsrModelConnection', aliases: 'asrModelAliases', put: 'putAsrModelAlias', resolve: 'resolveAsrModelAlias',
      deprecate: 'deprecateAsrModelAlias', undeprecate: 'undeprecateAsrModelAlias', delAlias: 'deleteAsrModelAlias',
      options: 'asrModelAliasOptions', resolution: 'asrModelAliasResolution',
    },
    inputs: { register: 'AsrModelInput', update: 'UpdateAsrModelInput', status: 'UpdateAsrModelStatusInput', alias: 'AsrAliasInput', resolve: 'AsrAliasResolveInput' },
    modelFields: ASR_MODEL,
    aliasFields: `${ALIAS_COMMON} fallbackModel`,
    scopes: { models: SCOPES.asrModelsWrite, modelsDelete: SCOPES.asrModelsDelete, aliases: SCOPES.asrAliasesWrite, aliasesDelete: SCOPES.asrAliasesDelete, read: SCOPES.speechModelsRead },
  }),
];
