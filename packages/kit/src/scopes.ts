/**
 * The scope catalogue. docs/scopes.md documents each scope and the role mapping;
 * a test keeps the two in step.
 */
export const SCOPES = {
  tenantsRead: 'admin:tenants:read',
  tenantsWrite: 'admin:tenants:write',
  usersRead: 'admin:users:read',
  rolesRead: 'admin:roles:read',
  apiKeysRead: 'api-keys:read',
  apiKeysWrite: 'api-keys:write',
  rateLimitsRead: 'admin:ratelimits:read',
  rateLimitsWrite: 'admin:ratelimits:write',
  sentverModelsWrite: 'admin:sentver-models:write',
  sentverModelsDelete: 'admin:sentver-models:delete',
  sentverAliasesWrite: 'admin:sentver-model-aliases:write',
  sentverAliasesDelete: 'admin:sentver-model-aliases:delete',
  embeddingModelsWrite: 'admin:speaker-embedding-models:write',
  embeddingModelsDelete: 'admin:speaker-embedding-models:delete',
  embeddingAliasesWrite: 'admin:speaker-embedding-model-aliases:write',
  embeddingAliasesDelete: 'admin:speaker-embedding-model-aliases:delete',
  speakerModelsRead: 'speaker:models:read',
  asrModelsWrite: 'admin:asr-models:write',
  asrModelsDelete: 'admin:asr-models:delete',
  asrAliasesWrite: 'admin:asr-model-aliases:write',
  asrAliasesDelete: 'admin:asr-model-aliases:delete',
  speechModelsRead: 'speech:models:read',
  sessionsRead: 'speech:sessions:read',
  sessionsWrite: 'speech:sessions:write',
  sessionsDelete: 'speech:sessions:delete',
  sessionsAdminRead: 'admin:sessions:read',
  transcriptionsRead: 'speech:transcriptions:read',
  transcriptionsWrite: 'speech:transcriptions:write',
  summariesRead: 'speech:summaries:read',
  summariesWrite: 'speech:summaries:write',
  subscriptionsAdminRead: 'admin:subscriptions:read',
  subscriptionsAdminWrite: 'admin:subscriptions:write',
  subscriptionsRead: 'subscriptions:read',
  plansRead: 'subscriptions:plans:read',
} as const;

export type Scope = (typeof SCOPES)[keyof typeof SCOPES];
export const ALL_SCOPES: readonly Scope[] = Object.values(SCOPES);

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}
