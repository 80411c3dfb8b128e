import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { startDevIdp, type DevIdp, type DevIdpUser } from '@voxgate/dev-idp';
import type { TestPlatform } from './platform';

export interface RoleRef { id: string; slug: string; name: string; hierarchyOrder: number }

export async function rolesBySlug(t: TestPlatform): Promise<Record<string, RoleRef>> {
  const res = await t.client.get<RoleRef[]>('/api/v1/roles', { apiKey: t.rootKey });
  if (res.status !== 200) throw new Error(`roles: ${res.status} ${res.text}`);
  return Object.fromEntries(res.body.map((r) => [r.slug, r]));
}

export interface TenantWithIdp {
  id: string;
  name: string;
  idp: DevIdp;
  /** password login through the platform, as this tenant */
  login(username: string, password: string): Promise<{ access_token: string; refresh_token: string }>;
  /** an API key of a signed-in user of this tenant with these scopes; omitted: an identity-only key */
  apiKeyOf(bearer: string, scopes?: string[]): Promise<string>;
  close(): Promise<void>;
}

/** A tenant with its own (real) dev identity provider and users, owner role tenant-admin. */
export async function createTenantWithIdp(t: TestPlatform, users: DevIdpUser[], opts: { firstLogin?: string; defaultRole?: string } = {}): Promise<TenantWithIdp> {
  const roles = await rolesBySlug(t);
  const name = `t-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(16).toString('hex');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vx-idp-'));
  const idp = await startDevIdp({
    port: 0, dataDir, redisUrl: inject('redisUrl'), redisPrefix: `${name}:`, users,
    clients: [{ clientId: name, clientSecret, redirectUris: ['http://127.0.0.1:9/callback'] }],
  });
  const created = await t.client.post<{ id: string }>('/api/v1/admin/tenants', {
    name, displayName: `Tenant ${name}`,
    firstLoginRoleId: roles[opts.firstLogin ?? 'tenant-admin']?.id, defaultRoleId: roles[opts.defaultRole ?? 'member']?.id,
    oidcProvider: {
      clientId: name, clientSecret, issuerUri: idp.issuer, tokenUri: idp.tokenEndpoint, jwkSetUri: idp.jwksUri,
      authorizationUri: idp.authorizationEndpoint, introspectionUri: `${idp.issuer}/token/introspection`,
    },
  }, { apiKey: t.rootKey });
  if (created.status !== 201) throw new Error(`create tenant: ${created.status} ${created.text}`);
  return {
    id: created.body.id, name, idp,
    login: async (username, password) => {
      const res = await t.client.post<{ access_token: string; refresh_token: string }>('/api/v1/auth/login', { username, password }, { tenant: name });
      if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${res.text}`);
      return res.body;
    },
    apiKeyOf: async (bearer, scopes) => {
      const res = await t.client.post<{ key: string }>('/api/v1/api-keys', { name: 'test', ...(scopes ? { scopes } : {}) }, { bearer });
      if (res.status !== 201) throw new Error(`api key: ${res.status} ${res.text}`);
      return res.body.key;
    },
    close: async () => {
      await idp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
