import { Field, Float, ID, ObjectType, registerEnumType } from 'type-graphql';
import { SessionSegment, StreamingSession, StreamingSessionState } from '../sessions/session.types';

export enum StreamingSessionEventType { STARTED = 'STARTED', PARTIAL = 'PARTIAL', SEGMENT = 'SEGMENT', ENDED = 'ENDED' }
registerEnumType(StreamingSessionEventType, { name: 'StreamingSessionEventType' });

@ObjectType('StreamingPartialResult', { description: 'The current guess for the utterance in progress; later events may change it completely.' })
export class StreamingPartialResult {
  @Field(() => String) transcript!: string;
  @Field(() => Float, { description: 'where the utterance started, seconds from session start' }) startSeconds!: number;
}

@ObjectType('StreamingSessionEvent', {
  description: 'Something that happened in a streaming session. STARTED and ENDED carry `state` (and ENDED `failureReason`); PARTIAL carries `partial`; SEGMENT carries `segment`. `session` is read through the gateway when selected.',
})
export class StreamingSessionEvent {
  @Field(() => StreamingSessionEventType) type!: StreamingSessionEventType;
  @Field(() => ID) sessionId!: string;
  @Field(() => ID) userId!: string;
  @Field(() => String, { description: 'ISO 8601' }) at!: string;
  @Field(() => StreamingSessionState, { nullable: true }) state!: StreamingSessionState | null;
  @Field(() => String, { nullable: true }) failureReason!: string | null;
  @Field(() => StreamingPartialResult, { nullable: true }) partial!: StreamingPartialResult | null;
  @Field(() => SessionSegment, { nullable: true }) segment!: SessionSegment | null;
  @Field(() => StreamingSession, { nullable: true, description: 'the session record as it is when the event is delivered' }) session!: StreamingSession | null;
}
