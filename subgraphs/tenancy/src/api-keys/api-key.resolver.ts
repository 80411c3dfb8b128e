import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { TenancyContext } from '../context';
import { toApiKey } from '../mappers';
import { ApiKey, ApiKeyCreateInput, CreatedApiKey } from './api-key.type';
import { ApiKeysService } from './api-keys.service';

@Resolver(() => ApiKey)
export class ApiKeyResolver {
  @Authorized(SCOPES.apiKeysRead)
  @Query(() => [ApiKey], { description: "The caller's own API keys." })
  async apiKeys(@Ctx() ctx: TenancyContext): Promise<ApiKey[]> {
    return (await new ApiKeysService(ctx.deps).listOwn(ctx.identity)).map(toApiKey);
  }

  @Authorized(SCOPES.apiKeysWrite)
  @Mutation(() => CreatedApiKey, { description: 'The plain key is returned here once and never again.' })
  async createApiKey(@Ctx() ctx: TenancyContext, @Arg('input', () => ApiKeyCreateInput) input: ApiKeyCreateInput): Promise<CreatedApiKey> {
    const { row, key } = await new ApiKeysService(ctx.deps).create(ctx.identity, input);
    return { ...toApiKey(row), key };
  }

  @Authorized(SCOPES.apiKeysWrite)
  @Mutation(() => ApiKey, { description: 'Revocation is permanent.' })
  async revokeApiKey(@Ctx() ctx: TenancyContext, @Arg('id', () => ID) id: string): Promise<ApiKey> {
    return toApiKey(await new ApiKeysService(ctx.deps).revoke(ctx.identity, id));
  }
}
