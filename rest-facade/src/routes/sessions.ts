import { SCOPES } from '@voxgate/kit';
import type { Route } from '../route';

const tag = 'Streaming sessions';
export const SESSION_FIELDS = 'sessionId state requestedModelAlias resolvedModelName usedFallback startTime endTime durationMilliseconds wordsCount segmentCount recordingRequested itnRequested diarizationRequested recordingPurged recordingPurgedAt clientAddress userAgent failureReason metadata';
export const SEGMENT_FIELDS = 'id segmentIndex transcript confidence words { word startSeconds endSeconds confidence speakerTag } startSeconds endSeconds createdAt';

export const sessionRoutes: Route[] = [
  {
    method: 'get', path: '/speech-services/streams', operationId: 'listStreamingSessions', tag, scope: SCOPES.sessionsRead,
    summary: "Streaming sessions, newest first: the caller's own, or with scope=TENANT (admin:sessions:read) every session of the tenant",
    document: `query ($page: Int, $size: Int, $sort: String, $scope: StreamingSessionScope, $state: StreamingSessionState, $modelAlias: String,
      $startedAfter: String, $startedBefore: String, $recordingRequested: Boolean, $itnRequested: Boolean, $diarizationRequested: Boolean) {
      streamingSessions(page: $page, size: $size, sort: $sort, scope: $scope, state: $state, modelAlias: $modelAlias, startedAfter: $startedAfter,
        startedBefore: $startedBefore, recordingRequested: $recordingRequested, itnRequested: $itnRequested, diarizationRequested: $diarizationRequested) {
        sessions { ${SESSION_FIELDS} } page size total
      } }`,
    query: {
      page: { variable: 'page', type: 'integer', default: 0, description: 'zero-based' },
      size: { variable: 'size', type: 'integer', default: 20, description: 'at most 100' },
      sort: { variable: 'sort', type: 'string', default: 'startTime,desc', description: 'startTime | endTime | durationMilliseconds | wordsCount | segmentCount, then ,asc or ,desc' },
      scope: { variable: 'scope', type: 'string', default: 'OWN', description: 'OWN (default) or TENANT (needs admin:sessions:read)' },
      state: { variable: 'state', type: 'string', description: 'CREATED, ACTIVE, FINISHED, CANCELLED, FAILED' },
      modelAlias: { variable: 'modelAlias', type: 'string', description: 'partial, case-insensitive match' },
      startedAfter: { variable: 'startedAfter', type: 'string', description: 'ISO 8601; sessions started on or after' },
      startedBefore: { variable: 'startedBefore', type: 'string', description: 'ISO 8601; sessions started on or before' },
      recordingRequested: { variable: 'recordingRequested', type: 'boolean' },
      itnRequested: { variable: 'itnRequested', type: 'boolean' },
      diarizationRequested: { variable: 'diarizationRequested', type: 'boolean' },
    },
    result: 'streamingSessions', status: 200, errors: [400, 401, 403],
  },
  {
    method: 'get', path: '/speech-services/streams/:id', operationId: 'getStreamingSession', tag, scope: SCOPES.sessionsRead,
    summary: 'One streaming session (SpeechServiceSessionResponse)',
    document: `query ($id: ID!) { streamingSession(id: $id) { ${SESSION_FIELDS} } }`,
    params: { id: 'id' }, result: 'streamingSession', status: 200, errors: [401, 403, 404],
  },
  {
    method: 'get', path: '/speech-services/streams/:id/segments', operationId: 'listStreamingSessionSegments', tag, scope: SCOPES.sessionsRead,
    summary: 'Finalized segments in order of occurrence (empty after a content purge)',
    document: `query ($id: ID!) { streamingSessionSegments(id: $id) { ${SEGMENT_FIELDS} } }`,
    params: { id: 'id' }, result: 'streamingSessionSegments', status: 200, errors: [401, 403, 404],
  },
  {
    method: 'get', path: '/speech-services/streams/:id/recording', operationId: 'downloadStreamingSessionRecording', tag, scope: SCOPES.sessionsRead,
    summary: 'The recording: raw 16 kHz 16-bit signed little-endian mono PCM, bandwidth-throttled (404 when none was requested or kept, 409 while the session runs, 410 once purged)',
    document: 'query ($id: ID!) { streamingSessionRecording(id: $id) { sessionId contentType sampleRateHz sizeBytes durationMilliseconds downloadBytesPerSecond } }',
    params: { id: 'id' }, result: 'streamingSessionRecording', status: 200, errors: [401, 403, 404, 409, 410],
    binary: { responder: 'sessionRecording', contentType: 'audio/x-pcm', description: 'Raw PCM: 16000 Hz, 16-bit signed little-endian, 1 channel' },
  },
  {
    method: 'delete', path: '/speech-services/streams/:id', operationId: 'deleteStreamingSession', tag, scope: SCOPES.sessionsDelete,
    summary: 'Soft delete: the record stays for audit and quota, hidden from reads and lists (409 while the session runs)',
    document: 'mutation ($id: ID!) { deleteStreamingSession(id: $id) }',
    params: { id: 'id' }, status: 204, errors: [401, 403, 404, 409],
  },
  {
    method: 'delete', path: '/speech-services/streams/:id/recording', operationId: 'purgeStreamingSessionRecording', tag, scope: SCOPES.sessionsDelete,
    summary: 'Permanently removes the recording; metadata and segments stay. Irreversible; 10 per minute',
    document: 'mutation ($id: ID!) { purgeStreamingSessionRecording(id: $id) }',
    params: { id: 'id' }, status: 204, errors: [401, 403, 404, 409, 429],
  },
  {
    method: 'post', path: '/speech-services/streams/:id/purge', operationId: 'purgeStreamingSession', tag, scope: SCOPES.sessionsDelete,
    summary: 'Permanently deletes all segments and the recording; session metadata stays. Irreversible; 10 per minute',
    document: 'mutation ($id: ID!) { purgeStreamingSession(id: $id) }',
    params: { id: 'id' }, status: 204, errors: [401, 403, 404, 409, 429],
  },
];
