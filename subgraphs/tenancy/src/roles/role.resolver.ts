import { SCOPES } from '@voxgate/kit';
import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { TenancyContext } from '../context';
import { toRole } from '../mappers';
import { Role } from './role.type';
import { RolesRepository } from './roles.repository';

@Resolver(() => Role)
export class RoleResolver {
  @Authorized(SCOPES.rolesRead)
  @Query(() => [Role], { description: 'Roles the caller may assign: those ranked below the caller.' })
  async roles(@Ctx() ctx: TenancyContext): Promise<Role[]> {
    const rows = await new RolesRepository(ctx.deps.db).below(ctx.identity.hierarchyOrder);
    return rows.map(toRole);
  }
}
