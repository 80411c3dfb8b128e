import { SCOPES } from '@voxgate/kit';
import { OIDC_FIELDS, ROLE_FIELDS, TENANT_FIELDS, type Route } from '../route';

const tag = 'Tenants';
const idParam = { id: 'id' };

export const tenantRoutes: Route[] = [
  {
    method: 'get', path: '/admin/tenants', operationId: 'listTenants', tag, scope: SCOPES.tenantsRead,
    summary: 'List tenants (callers outside the system tenant see only their own)',
    document: `query ($page: Int!, $size: Int!) { tenants(page: $page, size: $size) { tenants { ${TENANT_FIELDS} } page size total } }`,
    query: {
      page: { variable: 'page', type: 'integer', default: 0, description: 'zero-based page' },
      size: { variable: 'size', type: 'integer', default: 20, description: 'page size, 1 to 100' },
    },
    result: 'tenants', status: 200, errors: [400, 401, 403],
  },
  {
    method: 'get', path: '/admin/tenants/:id', operationId: 'getTenant', tag, scope: SCOPES.tenantsRead,
    summary: 'Get a tenant',
    document: `query ($id: ID!) { tenant(id: $id) { ${TENANT_FIELDS} } }`,
    params: idParam, result: 'tenant', status: 200, errors: [401, 403, 404],
  },
  {
    method: 'post', path: '/admin/tenants', operationId: 'createTenant', tag, scope: SCOPES.tenantsWrite,
    summary: 'Create a tenant (system administrators only)',
    document: `mutation ($input: TenantCreateInput!) { createTenant(input: $input) { ${TENANT_FIELDS} } }`,
    body: 'input', result: 'createTenant', status: 201, errors: [400, 401, 403, 409],
  },
  {
    method: 'put', path: '/admin/tenants/:id', operationId: 'updateTenant', tag, scope: SCOPES.tenantsWrite,
    summary: 'Update a tenant (name is not updatable); answers the updated tenant',
    document: `mutation ($id: ID!, $input: TenantUpdateInput!) { updateTenant(id: $id, input: $input) { ${TENANT_FIELDS} } }`,
    params: idParam, body: 'input', result: 'updateTenant', status: 200, errors: [400, 401, 403, 404],
  },
  {
    method: 'post', path: '/admin/tenants/:id/enable', operationId: 'enableTenant', tag, scope: SCOPES.tenantsWrite,
    summary: 'Enable a tenant; answers the tenant',
    document: `mutation ($id: ID!) { enableTenant(id: $id) { ${TENANT_FIELDS} } }`,
    params: idParam, result: 'enableTenant', status: 200, errors: [401, 403, 404],
  },
  {
    method: 'post', path: '/admin/tenants/:id/disable', operationId: 'disableTenant', tag, scope: SCOPES.tenantsWrite,
    summary: "Disable a tenant: new logins and the tenant's existing tokens and keys are rejected",
    document: `mutation ($id: ID!) { disableTenant(id: $id) { ${TENANT_FIELDS} } }`,
    params: idParam, result: 'disableTenant', status: 200, errors: [401, 403, 404, 409],
  },
  {
    method: 'get', path: '/admin/tenants/:id/users', operationId: 'listTenantUsers', tag, scope: SCOPES.usersRead,
    summary: 'Users of a tenant, oldest first (counts against the users.userLookup rate limit)',
    document: `query ($id: ID!) { tenant(id: $id) { users { id username email displayName tenantId createdAt lastLoginAt role { ${ROLE_FIELDS} } } } }`,
    params: idParam, result: 'tenant.users', status: 200, errors: [401, 403, 404, 429],
  },
  {
    method: 'get', path: '/admin/tenants/:id/oidc-provider', operationId: 'getTenantOidcProvider', tag, scope: SCOPES.tenantsRead,
    summary: "Get the tenant's OIDC provider (404 when none is configured)",
    document: `query ($id: ID!) { tenantOidcProvider(tenantId: $id) { ${OIDC_FIELDS} } }`,
    params: idParam, result: 'tenantOidcProvider', status: 200, errors: [401, 403, 404],
  },
  {
    method: 'put', path: '/admin/tenants/:id/oidc-provider', operationId: 'putTenantOidcProvider', tag, scope: SCOPES.tenantsWrite,
    summary: "Create or replace the tenant's OIDC provider; answers the stored configuration",
    document: `mutation ($id: ID!, $input: OidcProviderInput!) { putTenantOidcProvider(tenantId: $id, input: $input) { ${OIDC_FIELDS} } }`,
    params: idParam, body: 'input', result: 'putTenantOidcProvider', status: 200, errors: [400, 401, 403, 404],
  },
  {
    method: 'delete', path: '/admin/tenants/:id/oidc-provider', operationId: 'deleteTenantOidcProvider', tag, scope: SCOPES.tenantsWrite,
    summary: 'Remove the OIDC provider; external SSO login stops',
    document: 'mutation ($id: ID!) { deleteTenantOidcProvider(tenantId: $id) }',
    params: idParam, status: 204, errors: [401, 403, 404],
  },
  {
    method: 'post', path: '/admin/tenants/:id/oidc-provider/test', operationId: 'testTenantOidcProvider', tag, scope: SCOPES.tenantsWrite,
    summary: 'Connectivity check with a client_credentials grant at the tenant token endpoint',
    document: 'mutation ($id: ID!) { testTenantOidcProvider(tenantId: $id) { success message error } }',
    params: idParam, result: 'testTenantOidcProvider', status: 200, errors: [401, 403, 404],
  },
];
