import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { TenancyContext } from '../context';
import { toOidcProvider } from '../mappers';
import { OidcProvider, OidcProviderInput, OidcTestResult } from './oidc-provider.type';
import { OidcService } from './oidc.service';

@Resolver(() => OidcProvider)
export class OidcProviderResolver {
  @Authorized(SCOPES.tenantsRead)
  @Query(() => OidcProvider, { description: "The tenant's OIDC configuration; NOT_FOUND when none is set." })
  async tenantOidcProvider(@Ctx() ctx: TenancyContext, @Arg('tenantId', () => ID) tenantId: string): Promise<OidcProvider> {
    return toOidcProvider(await new OidcService(ctx.deps).get(ctx.identity, tenantId));
  }

  @Authorized(SCOPES.tenantsWrite)
  @Mutation(() => OidcProvider, { description: 'Creates or replaces the tenant OIDC configuration.' })
  async putTenantOidcProvider(
    @Ctx() ctx: TenancyContext,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('input', () => OidcProviderInput) input: OidcProviderInput,
  ): Promise<OidcProvider> {
    return toOidcProvider(await new OidcService(ctx.deps).put(ctx.identity, tenantId, input));
  }

  @Authorized(SCOPES.tenantsWrite)
  @Mutation(() => Boolean, { description: 'Removes the configuration; external SSO login stops.' })
  async deleteTenantOidcProvider(@Ctx() ctx: TenancyContext, @Arg('tenantId', () => ID) tenantId: string): Promise<boolean> {
    await new OidcService(ctx.deps).remove(ctx.identity, tenantId);
    return true;
  }

  @Authorized(SCOPES.tenantsWrite)
  @Mutation(() => OidcTestResult)
  async testTenantOidcProvider(@Ctx() ctx: TenancyContext, @Arg('tenantId', () => ID) tenantId: string): Promise<OidcTestResult> {
    return new OidcService(ctx.deps).test(ctx.identity, tenantId);
  }
}
