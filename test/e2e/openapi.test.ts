import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '@voxgate/kit';
import { ROUTES } from '@voxgate/rest-facade';
import { ROLE_CATALOGUE } from '@voxgate/tenancy';
import { startTestPlatform, type TestPlatform } from '../support/platform';

type Json = Record<string, unknown>;
interface OpenApi { openapi: string; paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } }

let t: TestPlatform;
let doc: OpenApi;
beforeAll(async () => {
  t = await startTestPlatform();
  doc = (await t.client.get<OpenApi>('/api/v1/openapi.json')).body;
});
afterAll(async () => { await t?.close(); });

const SPEC_PATHS = [
  'post /api/v1/auth/login', 'post /api/v1/auth/exchange-auth-code', 'post /api/v1/auth/refresh-token', 'post /api/v1/auth/logout',
  'get /api/v1/admin/tenants', 'get /api/v1/admin/tenants/{id}', 'post /api/v1/admin/tenants', 'put /api/v1/admin/tenants/{id}',
  'post /api/v1/admin/tenants/{id}/enable', 'post /api/v1/admin/tenants/{id}/disable', 'get /api/v1/admin/tenants/{id}/oidc-provider',
  'put /api/v1/admin/tenants/{id}/oidc-provider', 'delete /api/v1/admin/tenants/{id}/oidc-provider', 'post /api/v1/admin/tenants/{id}/oidc-provider/test',
  'post /api/v1/api-keys', 'get /api/v1/api-keys', 'delete /api/v1/api-keys/{id}', 'get /api/v1/roles', 'get /api/v1/users/me',
];

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 and served without credentials', () => {
    expect(doc.openapi).toBe('3.1.0');
  });

  it('documents every facade route and every path this issue requires', () => {
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    const routes = ROUTES.map((r) => `${r.method} /api/v1${r.path.replace(/:(\w+)/g, '{$1}')}`);
    expect(documented.sort()).toEqual([...new Set(routes)].sort());
    for (const p of SPEC_PATHS) expect(documented).toContain(p);
  });

  it('gives each operation its success status, error statuses as problem documents, and its scope', () => {
    const get = doc.paths['/api/v1/admin/tenants/{id}']?.get as { responses: Record<string, Json>; 'x-required-scope': string };
    expect(get['x-required-scope']).toBe('admin:tenants:read');
    expect(Object.keys(get.responses).sort()).toEqual(['200', '401', '403', '404']);
    expect(JSON.stringify(get.responses['404'])).toContain('application/problem+json');
    const create = doc.paths['/api/v1/admin/tenants']?.post as { responses: Record<string, Json> };
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '409']));
    const login = doc.paths['/api/v1/auth/login']?.post as { deprecated?: boolean; security: unknown[] };
    expect(login.deprecated).toBe(true);
    expect(login.security).toEqual([]);
  });

  it('describes the TenantResponse fields with their nullability', () => {
    const get = doc.paths['/api/v1/admin/tenants/{id}']?.get as { responses: { '200': { content: { 'application/json': { schema: { properties: Record<string, Json>; required: string[] } } } } } };
    const schema = get.responses['200'].content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['id', 'name', 'description', 'oidcProvider']));
    expect(schema.properties.name).toMatchObject({ type: 'string' });
    expect(schema.properties.description).toMatchObject({ type: ['string', 'null'] });
    expect(schema.properties.speechServiceSessionMaxConcurrent).toMatchObject({ type: 'integer' });
    expect(JSON.stringify(schema.properties.oidcProvider)).toContain('clientSecretConfigured');
    expect(JSON.stringify(schema)).not.toContain('clientSecret"');
    const input = doc.components.schemas.TenantCreateInput as { required: string[]; additionalProperties: boolean };
    expect(input.required.sort()).toEqual(['defaultRoleId', 'displayName', 'firstLoginRoleId', 'name']);
    expect(input.additionalProperties).toBe(false);
  });
});

describe('docs/scopes.md', () => {
  const text = fs.readFileSync(new URL('../../docs/scopes.md', import.meta.url), 'utf8');

  it('lists every scope of the catalogue', () => {
    for (const scope of ALL_SCOPES) expect(text).toContain(`\`${scope}\``);
  });

  it('matches the built-in roles, their ranks and scopes', () => {
    for (const role of ROLE_CATALOGUE) {
      const row = text.split('\n').find((l) => l.startsWith(`| \`${role.slug}\``));
      expect(row, role.slug).toBeDefined();
      expect(row).toContain(`| ${role.hierarchyOrder} |`);
      if (role.scopes.length === ALL_SCOPES.length) expect(row).toContain('every scope');
      else for (const s of role.scopes) expect(row).toContain(`\`${s}\``);
    }
  });
});
