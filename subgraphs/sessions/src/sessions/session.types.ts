import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';

export enum StreamingSessionState { CREATED = 'CREATED', ACTIVE = 'ACTIVE', FINISHED = 'FINISHED', CANCELLED = 'CANCELLED', FAILED = 'FAILED' }
registerEnumType(StreamingSessionState, {
  name: 'StreamingSessionState',
  description: 'CREATED (record created, engine connection in progress), ACTIVE (engine connected, processing audio), FINISHED, CANCELLED (client disconnected), FAILED (see failureReason)',
});

export enum StreamingSessionScope { OWN = 'OWN', TENANT = 'TENANT' }
registerEnumType(StreamingSessionScope, {
  name: 'StreamingSessionScope',
  description: "OWN: the caller's sessions (default). TENANT: every session of the caller's tenant (needs admin:sessions:read).",
});

@ObjectType('SpeechServiceSessionWord')
export class SessionWord {
  @Field(() => String) word!: string;
  @Field(() => Float) startSeconds!: number;
  @Field(() => Float) endSeconds!: number;
  @Field(() => Float, { nullable: true, description: '0.0 to 1.0' }) confidence!: number | null;
  @Field(() => Int, { nullable: true, description: 'present when diarization was active' }) speakerTag!: number | null;
}

@ObjectType('SpeechServiceSessionSegment')
export class SessionSegment {
  @Field(() => ID) id!: string;
  @Field(() => Int, { description: 'zero-based index in the session' }) segmentIndex!: number;
  @Field(() => String) transcript!: string;
  @Field(() => Float, { nullable: true }) confidence!: number | null;
  @Field(() => [SessionWord], { nullable: true }) words!: SessionWord[] | null;
  @Field(() => Float, { description: 'seconds relative to session start' }) startSeconds!: number;
  @Field(() => Float, { description: 'seconds relative to session start' }) endSeconds!: number;
  @Field(() => String, { description: 'finalization time (ISO 8601)' }) createdAt!: string;
}

@ObjectType('SpeechServiceSession', { description: 'A streaming recognition session (SpeechServiceSessionResponse).' })
export class StreamingSession {
  @Field(() => ID) sessionId!: string;
  @Field(() => StreamingSessionState) state!: StreamingSessionState;
  @Field(() => String, { description: "alias requested by the client (the tenant default's name when none was)" }) requestedModelAlias!: string;
  @Field(() => String) resolvedModelName!: string;
  @Field(() => Boolean) usedFallback!: boolean;
  @Field(() => String, { description: 'ISO 8601' }) startTime!: string;
  @Field(() => String, { nullable: true }) endTime!: string | null;
  @Field(() => Float, { description: 'processed audio duration (long)' }) durationMilliseconds!: number;
  @Field(() => Int) wordsCount!: number;
  @Field(() => Int) segmentCount!: number;
  @Field(() => Boolean) recordingRequested!: boolean;
  @Field(() => Boolean) itnRequested!: boolean;
  @Field(() => Boolean) diarizationRequested!: boolean;
  @Field(() => Boolean) recordingPurged!: boolean;
  @Field(() => String, { nullable: true }) recordingPurgedAt!: string | null;
  @Field(() => String) clientAddress!: string;
  @Field(() => String, { nullable: true }) userAgent!: string | null;
  @Field(() => String, { nullable: true }) failureReason!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true }) metadata!: Record<string, string> | null;
  // GraphQL extras (not in the REST response)
  @Field(() => ID, { description: 'the user who ran the session' }) userId!: string;
  @Field(() => String, { description: 'BCP-47 language of the session' }) language!: string;
  @Field(() => Boolean, { description: 'a recording is kept (requested and allowed by the tenant)' }) recordingAvailable!: boolean;
}

@ObjectType('SpeechServiceSessionPage')
export class StreamingSessionPage {
  @Field(() => [StreamingSession]) sessions!: StreamingSession[];
  @Field(() => Int) page!: number;
  @Field(() => Int, { description: 'items in this page' }) size!: number;
  @Field(() => Float, { description: 'all matching sessions (long)' }) total!: number;
}

@ObjectType('SpeechServiceSessionRecording', { description: 'Raw 16 kHz 16-bit little-endian mono PCM (audio/x-pcm).' })
export class SessionRecording {
  @Field(() => ID) sessionId!: string;
  @Field(() => String) contentType!: string;
  @Field(() => Int) sampleRateHz!: number;
  @Field(() => Float) sizeBytes!: number;
  @Field(() => Float) durationMilliseconds!: number;
  @Field(() => Float, { description: 'bandwidth the download is throttled to, bytes per second' }) downloadBytesPerSecond!: number;
}
