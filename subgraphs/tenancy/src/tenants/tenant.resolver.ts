import { notFound, RateLimited, SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root, UseMiddleware } from 'type-graphql';
import { forbidden } from '@voxgate/kit';
import type { TenancyContext } from '../context';
import { isSystemCaller } from '../context';
import { toOidcProvider, toRole, toTenant, toUser } from '../mappers';
import { OidcProvider } from '../oidc/oidc-provider.type';
import { Role } from '../roles/role.type';
import { User } from '../users/user.type';
import { Tenant, TenantCreateInput, TenantPage, TenantUpdateInput } from './tenant.type';
import { TenantsService } from './tenants.service';

const service = (ctx: TenancyContext) => new TenantsService(ctx.deps, ctx.loaders);

@Resolver(() => Tenant)
export class TenantResolver {
  @Authorized(SCOPES.tenantsRead)
  @Query(() => TenantPage)
  async tenants(
    @Ctx() ctx: TenancyContext,
    @Arg('page', () => Int, { defaultValue: 0 }) page: number,
    @Arg('size', () => Int, { defaultValue: 20 }) size: number,
  ): Promise<TenantPage> {
    const { rows, total } = await service(ctx).list(ctx.identity, page, size);
    for (const r of rows) ctx.loaders.tenant.prime(r.id, r);
    return { tenants: rows.map(toTenant), page, size: rows.length, total };
  }

  @Authorized(SCOPES.tenantsRead)
  @Query(() => Tenant)
  async tenant(@Ctx() ctx: TenancyContext, @Arg('id', () => ID) id: string): Promise<Tenant> {
    return toTenant(await service(ctx).visible(ctx.identity, id));
  }

  @Authorized(SCOPES.tenantsWrite)
  @Mutation(() => Tenant)
  async createTenant(@Ctx() ctx: TenancyContext, @Arg('input', () => TenantCreateInput) input: TenantCreateInput): Promise<Tenant> {
    return toTenant(await service(ctx).create(ctx.identity, input));
  }

  @Authorized(SCOPES.tenantsWrite)
  @Mutation(() => Tenant)
  async updateTenant(
    @Ctx() ctx: TenancyContext,
    @Arg('id', () => ID) id: string,
    @Arg('input', () => TenantUpdateInput) input: TenantUpdateInput,
  ): Promise<Tenant> {
    return toTenant(await service(ctx).update(ctx.identity, id, input));
  }

  @Authorized(SCOPES.tenantsWrite)
  @Mutation(() => Tenant)
  async enableTenant(@Ctx() ctx: TenancyContext, @Arg('id', () => ID) id: string): Promise<Tenant> {
    return toTenant(await service(ctx).setEnabled(ctx.identity, id, true));
  }

  @Authorized(SCOPES.tenantsWrite)
  @Mutation(() => Tenant)
  async disableTenant(@Ctx() ctx: TenancyContext, @Arg('id', () => ID) id: string): Promise<Tenant> {
    return toTenant(await service(ctx).setEnabled(ctx.identity, id, false));
  }

  // tenant configuration is admin data: reachable through `me { tenant }` too, so guarded here
  @Authorized(SCOPES.tenantsRead)
  @FieldResolver(() => Role)
  async firstLoginRole(@Root() t: Tenant, @Ctx() ctx: TenancyContext): Promise<Role> {
    const row = await ctx.loaders.role.load(t.firstLoginRoleId);
    if (!row) throw notFound('Role');
    return toRole(row);
  }

  @Authorized(SCOPES.tenantsRead)
  @FieldResolver(() => Role)
  async defaultRole(@Root() t: Tenant, @Ctx() ctx: TenancyContext): Promise<Role> {
    const row = await ctx.loaders.role.load(t.defaultRoleId);
    if (!row) throw notFound('Role');
    return toRole(row);
  }

  @Authorized(SCOPES.tenantsRead)
  @FieldResolver(() => OidcProvider, { nullable: true, description: 'active OIDC configuration' })
  async oidcProvider(@Root() t: Tenant, @Ctx() ctx: TenancyContext): Promise<OidcProvider | null> {
    const row = await ctx.loaders.oidcProviderByTenant.load(t.id);
    return row ? toOidcProvider(row) : null;
  }

  @Authorized(SCOPES.usersRead)
  @UseMiddleware(RateLimited('users', 'userLookup'))
  @FieldResolver(() => [User], { description: 'Users of the tenant, oldest first (counts against users.userLookup).' })
  async users(@Root() t: Tenant, @Ctx() ctx: TenancyContext): Promise<User[]> {
    if (!isSystemCaller(ctx.identity) && ctx.identity.tenantId !== t.id) throw forbidden();
    const rows = await ctx.loaders.usersByTenant.load(t.id);
    for (const u of rows) ctx.loaders.user.prime(u.id, u);
    return rows.map(toUser);
  }
}

/** Federation entry point: other subgraphs reference tenants by id. */
export async function resolveTenantReference(ref: { id: string }, ctx: TenancyContext): Promise<Tenant | null> {
  const row = await ctx.loaders.tenant.load(ref.id);
  if (!row) return null;
  if (!isSystemCaller(ctx.identity) && ctx.identity.tenantId !== row.id) return null;
  return toTenant(row);
}
