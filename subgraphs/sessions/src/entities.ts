import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, Directive, Field, FieldResolver, ID, Int, ObjectType, Resolver, Root } from 'type-graphql';
import type { SessionsContext } from './context';
import { toSession } from './sessions/mappers';
import { StreamingSessionPage, StreamingSessionState } from './sessions/session.types';
import { SessionsService } from './sessions/sessions.service';

@Directive('@key(fields: "id")')
@ObjectType('Tenant')
export class SessionsTenant {
  @Field(() => ID) id!: string;
}

/** Admin consoles read a tenant's streaming sessions next to its other data in one query. */
@Resolver(() => SessionsTenant)
export class SessionsTenantResolver {
  @Authorized(SCOPES.sessionsAdminRead)
  @FieldResolver(() => StreamingSessionPage, { description: "Every session of the tenant, newest first by default (the tenant's administrators, or the system tenant's)." })
  async streamingSessions(
    @Root() t: SessionsTenant,
    @Ctx() ctx: SessionsContext,
    @Arg('page', () => Int, { defaultValue: 0 }) page: number,
    @Arg('size', () => Int, { defaultValue: 20 }) size: number,
    @Arg('sort', () => String, { defaultValue: 'startTime,desc' }) sort: string,
    @Arg('state', () => StreamingSessionState, { nullable: true }) state: StreamingSessionState | null,
  ): Promise<StreamingSessionPage> {
    const r = await new SessionsService(ctx.deps).listOfTenant(ctx.identity, t.id, { page, size, sort, scope: 'TENANT', state });
    return { sessions: r.rows.map(toSession), page: r.page, size: r.rows.length, total: r.total };
  }
}
