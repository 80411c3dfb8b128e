import type { ApiKeyRow, OidcProviderRow, RoleRow, TenantRow, UserRow } from './db/schema';
import { ApiKeyState, type ApiKey } from './api-keys/api-key.type';
import type { OidcProvider } from './oidc/oidc-provider.type';
import type { Role } from './roles/role.type';
import type { Tenant } from './tenants/tenant.type';
import type { User } from './users/user.type';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export const toRole = (r: RoleRow): Role => ({ id: r.id, slug: r.slug, name: r.name, hierarchyOrder: r.hierarchyOrder, scopes: r.scopes });

export const toTenant = (t: TenantRow): Tenant => ({
  id: t.id,
  name: t.name,
  displayName: t.displayName,
  description: t.description,
  enabled: t.enabled,
  createdAt: t.createdAt.toISOString(),
  speechServiceFileInternalPublishEnabled: t.fileInternalPublishEnabled,
  speechServiceFileDirectShareEnabled: t.fileDirectShareEnabled,
  speechServiceSessionMaxConcurrent: t.sessionMaxConcurrent,
  speechServiceSessionRecordingEnabled: t.sessionRecordingEnabled,
  firstLoginRoleId: t.firstLoginRoleId,
  defaultRoleId: t.defaultRoleId,
});

export const toOidcProvider = (p: OidcProviderRow): OidcProvider => ({
  id: p.id,
  providerKey: p.providerKey,
  clientId: p.clientId,
  clientSecretConfigured: p.clientSecret !== null && p.clientSecret !== '',
  issuerUri: p.issuerUri,
  authorizationUri: p.authorizationUri,
  tokenUri: p.tokenUri,
  userInfoUri: p.userInfoUri,
  jwkSetUri: p.jwkSetUri,
  endSessionUri: p.endSessionUri,
  introspectionUri: p.introspectionUri,
  advertisedIssuer: p.advertisedIssuer,
});

export const toUser = (u: UserRow): User => ({
  id: u.id,
  username: u.username,
  email: u.email,
  displayName: u.displayName,
  tenantId: u.tenantId,
  createdAt: u.createdAt.toISOString(),
  lastLoginAt: iso(u.lastLoginAt),
  roleId: u.roleId,
});

export function apiKeyState(k: Pick<ApiKeyRow, 'revokedAt' | 'expiresAt'>, now = new Date()): ApiKeyState {
  if (k.revokedAt) return ApiKeyState.Revoked;
  if (k.expiresAt && k.expiresAt.getTime() <= now.getTime()) return ApiKeyState.Expired;
  return ApiKeyState.Active;
}

export const toApiKey = (k: ApiKeyRow): ApiKey => ({
  id: k.id,
  name: k.name,
  description: k.description,
  prefix: k.keyPrefix,
  scopes: k.scopes,
  state: apiKeyState(k),
  expiresAt: iso(k.expiresAt),
  revokedAt: iso(k.revokedAt),
  lastUsedAt: iso(k.lastUsedAt),
  createdAt: k.createdAt.toISOString(),
});
