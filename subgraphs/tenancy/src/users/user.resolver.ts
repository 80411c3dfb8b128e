import { forbidden, notFound, SCOPES } from '@voxgate/kit';
import { Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { ApiKey } from '../api-keys/api-key.type';
import { isSystemCaller, type TenancyContext } from '../context';
import { toApiKey, toRole, toTenant, toUser } from '../mappers';
import { Role } from '../roles/role.type';
import { Tenant } from '../tenants/tenant.type';
import { User } from './user.type';

@Resolver(() => User)
export class UserResolver {
  @Authorized()
  @Query(() => User, { description: 'The caller.' })
  async me(@Ctx() ctx: TenancyContext): Promise<User> {
    const row = await ctx.loaders.user.load(ctx.identity.userId ?? '');
    if (!row) throw notFound('User');
    return toUser(row);
  }

  @FieldResolver(() => Role)
  async role(@Root() u: User, @Ctx() ctx: TenancyContext): Promise<Role> {
    const row = await ctx.loaders.role.load(u.roleId);
    if (!row) throw notFound('Role');
    return toRole(row);
  }

  @FieldResolver(() => Tenant)
  async tenant(@Root() u: User, @Ctx() ctx: TenancyContext): Promise<Tenant> {
    const row = await ctx.loaders.tenant.load(u.tenantId);
    if (!row) throw notFound('Tenant');
    return toTenant(row);
  }

  @Authorized(SCOPES.apiKeysRead)
  @FieldResolver(() => [ApiKey], { description: 'Own keys (api-keys:read), or any user\'s keys for admin:users:read holders of the tenant.' })
  async apiKeys(@Root() u: User, @Ctx() ctx: TenancyContext): Promise<ApiKey[]> {
    const { identity } = ctx;
    const allowed = u.id === identity.userId
      || (identity.scopes.includes(SCOPES.usersRead) && (isSystemCaller(identity) || identity.tenantId === u.tenantId));
    if (!allowed) throw forbidden();
    return (await ctx.loaders.apiKeysByUser.load(u.id)).map(toApiKey);
  }
}

export async function resolveUserReference(ref: { id: string }, ctx: TenancyContext): Promise<User | null> {
  const row = await ctx.loaders.user.load(ref.id);
  if (!row) return null;
  if (!isSystemCaller(ctx.identity) && ctx.identity.tenantId !== row.tenantId) return null;
  return toUser(row);
}
