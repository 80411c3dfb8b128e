import { SCOPES } from '@voxgate/kit';
import { Arg, Authorized, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { SessionsContext } from '../context';
import { recordingKey, toSegment, toSession } from './mappers';
import { SessionRecording, SessionSegment, StreamingSession, StreamingSessionPage, StreamingSessionScope, StreamingSessionState } from './session.types';
import { SessionsService } from './sessions.service';

const service = (ctx: SessionsContext) => new SessionsService(ctx.deps);

@Resolver(() => StreamingSession)
export class StreamingSessionResolver {
  @Authorized(SCOPES.sessionsRead)
  @Query(() => StreamingSessionPage, { description: "Streaming sessions, newest first by default: the caller's own, or with scope TENANT (admin:sessions:read) the whole tenant's." })
  async streamingSessions(
    @Ctx() ctx: SessionsContext,
    @Arg('page', () => Int, { defaultValue: 0 }) page: number,
    @Arg('size', () => Int, { defaultValue: 20, description: 'at most 100' }) size: number,
    @Arg('sort', () => String, { defaultValue: 'startTime,desc', description: 'startTime | endTime | durationMilliseconds | wordsCount | segmentCount, then ,asc or ,desc' }) sort: string,
    @Arg('scope', () => StreamingSessionScope, { defaultValue: StreamingSessionScope.OWN }) scope: StreamingSessionScope,
    @Arg('state', () => StreamingSessionState, { nullable: true }) state: StreamingSessionState | null,
    @Arg('modelAlias', () => String, { nullable: true, description: 'partial, case-insensitive' }) modelAlias: string | null,
    @Arg('startedAfter', () => String, { nullable: true, description: 'ISO 8601, inclusive' }) startedAfter: string | null,
    @Arg('startedBefore', () => String, { nullable: true, description: 'ISO 8601, inclusive' }) startedBefore: string | null,
    @Arg('recordingRequested', () => Boolean, { nullable: true }) recordingRequested: boolean | null,
    @Arg('itnRequested', () => Boolean, { nullable: true }) itnRequested: boolean | null,
    @Arg('diarizationRequested', () => Boolean, { nullable: true }) diarizationRequested: boolean | null,
  ): Promise<StreamingSessionPage> {
    const r = await service(ctx).list(ctx.identity, {
      page, size, sort, scope, state, modelAlias, startedAfter, startedBefore, recordingRequested, itnRequested, diarizationRequested,
    });
    return { sessions: r.rows.map(toSession), page: r.page, size: r.rows.length, total: r.total };
  }

  @Authorized(SCOPES.sessionsRead)
  @Query(() => StreamingSession)
  async streamingSession(@Ctx() ctx: SessionsContext, @Arg('id', () => ID) id: string): Promise<StreamingSession> {
    return toSession(await service(ctx).get(ctx.identity, id));
  }

  @Authorized(SCOPES.sessionsRead)
  @Query(() => [SessionSegment], { description: 'Finalized segments in order of occurrence (empty after a content purge).' })
  async streamingSessionSegments(@Ctx() ctx: SessionsContext, @Arg('id', () => ID) id: string): Promise<SessionSegment[]> {
    return (await service(ctx).segments(ctx.identity, id)).map(toSegment);
  }

  @Authorized(SCOPES.sessionsRead)
  @Query(() => SessionRecording, { description: 'Describes the recording and authorizes its download (GET /api/v1/speech-services/streams/{id}/recording streams the bytes).' })
  async streamingSessionRecording(@Ctx() ctx: SessionsContext, @Arg('id', () => ID) id: string): Promise<SessionRecording> {
    const svc = service(ctx);
    const r = await svc.recording(ctx.identity, id);
    return {
      sessionId: r.session.id, contentType: 'audio/x-pcm', sampleRateHz: 16_000, sizeBytes: r.size,
      durationMilliseconds: Math.floor(r.size / 32), downloadBytesPerSecond: svc.recordingDownloadRate(ctx.identity),
    };
  }

  @Authorized(SCOPES.sessionsDelete)
  @Mutation(() => Boolean, { description: 'Soft delete: hidden from reads and lists, kept for audit and quota.' })
  async deleteStreamingSession(@Ctx() ctx: SessionsContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await service(ctx).softDelete(ctx.identity, id);
    return true;
  }

  @Authorized(SCOPES.sessionsDelete)
  @Mutation(() => Boolean, { description: 'Permanently removes the recording; metadata and segments stay. Irreversible; 10 per minute.' })
  async purgeStreamingSessionRecording(@Ctx() ctx: SessionsContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await service(ctx).purgeRecording(ctx.identity, id);
    return true;
  }

  @Authorized(SCOPES.sessionsDelete)
  @Mutation(() => Boolean, { description: 'Permanently removes all segments and the recording; the session record stays. Irreversible; 10 per minute.' })
  async purgeStreamingSession(@Ctx() ctx: SessionsContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    await service(ctx).purgeContent(ctx.identity, id);
    return true;
  }
}

export { recordingKey };
