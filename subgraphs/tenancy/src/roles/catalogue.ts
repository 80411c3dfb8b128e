import { ALL_SCOPES, SCOPES, type Scope } from '@voxgate/kit';

export interface RoleDefinition {
  slug: string;
  name: string;
  hierarchyOrder: number;
  scopes: readonly Scope[];
}

const memberScopes: Scope[] = [
  SCOPES.apiKeysRead, SCOPES.apiKeysWrite, SCOPES.speakerModelsRead, SCOPES.speechModelsRead,
  SCOPES.sessionsRead, SCOPES.sessionsWrite, SCOPES.sessionsDelete,
  SCOPES.transcriptionsRead, SCOPES.transcriptionsWrite,
  SCOPES.summariesRead, SCOPES.summariesWrite,
  SCOPES.subscriptionsRead, SCOPES.plansRead,
];

/**
 * The built-in roles. A tenant administrator holds every scope, but tenancy rules confine
 * callers outside the system tenant to their own tenant. docs/scopes.md mirrors this table; a test
 * checks they agree.
 */
export const ROLE_CATALOGUE: readonly RoleDefinition[] = [
  { slug: 'system-admin', name: 'System administrator', hierarchyOrder: 1000, scopes: ALL_SCOPES },
  { slug: 'tenant-admin', name: 'Tenant administrator', hierarchyOrder: 100, scopes: ALL_SCOPES },
  { slug: 'member', name: 'Member', hierarchyOrder: 50, scopes: memberScopes },
  {
    slug: 'viewer', name: 'Viewer', hierarchyOrder: 10,
    scopes: [SCOPES.apiKeysRead, SCOPES.speakerModelsRead, SCOPES.speechModelsRead, SCOPES.sessionsRead, SCOPES.transcriptionsRead, SCOPES.summariesRead, SCOPES.subscriptionsRead, SCOPES.plansRead],
  },
];
