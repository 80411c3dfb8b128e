import 'reflect-metadata';
import type { SubgraphDefinition } from '@voxgate/kit';
import { buildFederatedSchema } from '@voxgate/kit';
import { ApiKeyResolver } from './api-keys/api-key.resolver';
import { AuthResolver } from './auth/auth.resolver';
import { createTenancyContext, type TenancyContext, type TenancyDeps } from './context';
import { OidcProviderResolver } from './oidc/oidc.resolver';
import { RoleResolver } from './roles/role.resolver';
import { resolveTenantReference, TenantResolver } from './tenants/tenant.resolver';
import { resolveUserReference, UserResolver } from './users/user.resolver';

export { Authenticator, AuthenticationError, type Credentials, type RequestMeta } from './authn/authenticator';
export { bootstrapTenancy, type BootstrapOptions } from './bootstrap';
export type { TenancyDeps } from './context';
export { SYSTEM_TENANT } from './context';
export { ROLE_CATALOGUE } from './roles/catalogue';
export { UserDirectory, type DirectoryUser } from './users/user-directory';
export { TenantStreamingPolicy, type TenantStreamingSettings } from './tenants/streaming-policy';
export type { OidcProviderValues } from './oidc/provider-input';

export async function tenancySubgraph(deps: TenancyDeps): Promise<SubgraphDefinition<TenancyContext>> {
  const schema = await buildFederatedSchema(
    { resolvers: [TenantResolver, OidcProviderResolver, RoleResolver, UserResolver, ApiKeyResolver, AuthResolver] },
    {
      Tenant: { __resolveReference: resolveTenantReference as never },
      User: { __resolveReference: resolveUserReference as never },
    },
  );
  return { name: 'tenancy', schema, createContext: (identity) => createTenancyContext(deps, identity) };
}
