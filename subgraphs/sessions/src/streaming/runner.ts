import { randomUUID } from 'node:crypto';
import {
  effectiveLimit, SCOPES, TokenBucket, type BlobWriter, type Identity, type StreamingSegmentEvent,
} from '@voxgate/kit';
import type { AsrSegment, AsrStreamingRecognizeResponse, EngineCallError } from '@voxgate/kit/grpc';
import type { ModelRow } from '@voxgate/speaker-models';
import type { SegmentWord, SessionState } from '../db/schema';
import { recordingKey } from '../sessions/mappers';
import { admit, RESERVE_MINUTES, type Admission } from './admission';
import { OnlineDiarizer } from './diarization';
import type { RecognitionStream } from './engines';
import type { LiveSession } from './live-sessions';
import { normalizedTranscript, normalizeWords } from './itn';
import {
  AUDIO_IDLE_TIMEOUT_MS, BYTES_PER_MS, CLOSE, StreamingRefusal, type FinalSegment, type ServerMessage, type StartMessage,
} from './protocol';
import type { StreamingDeps } from './streaming-deps';

/** How the runner talks back to its client (the edge's WebSocket). */
export interface SessionTransport {
  send(message: ServerMessage): void;
  close(code: number, reason: string): void;
}

export interface ClientMeta {
  clientAddress: string;
  userAgent: string | null;
}

/** grpc status UNAVAILABLE (grpc-js itself is loaded only where an engine is dialled) */
const GRPC_UNAVAILABLE = 14;
/** time the engine gets, after the end of audio, to deliver its last segments */
const DRAIN_TIMEOUT_MS = 15_000;
/** Health before a stream opens: an engine that is down must not hold a session CREATED for long */
const CONNECT_TIMEOUT_MS = 3_000;
/** audio is kept for diarization only as far back as a segment can reach */
const DIARIZATION_WINDOW_MS = 120_000;

interface Ending {
  state: SessionState;
  failureReason: string | null;
  closeCode: number;
  error?: { code: string; message: string; extras?: Record<string, unknown> };
}

/**
 * One live streaming session: admission, the engine stream, persistence of segments, events for
 * subscribers, recording, limits while running, and exactly one ending (FINISHED, CANCELLED or
 * FAILED) that releases every slot and counts the audio against the monthly minutes.
 */
export class StreamingSessionRunner implements LiveSession {
  private stream: RecognitionStream | null = null;
  private releaseChannel: (() => void) | null = null;
  private recording: BlobWriter | null = null;
  private bytes = 0;
  private segments = 0;
  private words = 0;
  private ending: Ending | null = null;
  private ended: Promise<void> | null = null;
  private audioClosed = false;
  private lastAudioAt = Date.now();
  /** the session record exists: from here on every failure is an ending, not a refusal */
  private created = false;
  /** the client went away after `stop`: recognition finishes, nothing more is sent */
  private clientGone = false;
  private drain: NodeJS.Timeout | null = null;
  private readonly bucket: TokenBucket;
  private readonly maxBytes: number;
  /** a reservation of the next minutes is under way (see Admission.extend) */
  private extending: Promise<void> | null = null;
  /** the quota had nothing more to reserve: the session ends where its reservations end */
  private quotaExhausted = false;
  private readonly diarizer: OnlineDiarizer | null;
  /** recent audio for the diarizer: chunks with their byte offset in the session */
  private recent: { offset: number; chunk: Buffer }[] = [];
  private persisting: Promise<void> = Promise.resolve();
  private resolveDone!: () => void;
  private finalState: SessionState | null = null;
  /** settles once the session has ended and its record, usage and slots are settled */
  readonly done: Promise<void> = new Promise((resolve) => { this.resolveDone = resolve; });

  private constructor(
    private readonly deps: StreamingDeps,
    private readonly identity: Identity,
    private readonly start: StartMessage,
    private readonly transport: SessionTransport,
    readonly sessionId: string,
    private readonly admission: Admission,
    readonly tenantId: string,
    private readonly userId: string,
  ) {
    const bytesPerSecond = effectiveLimit(identity, 'speech-service', 'speechServiceStreamMaxBytesPerSecond');
    // a 2-second burst: clients that buffer a little (reconnects, tab switches) are not cut off
    this.bucket = new TokenBucket(bytesPerSecond, bytesPerSecond * 2);
    this.maxBytes = admission.maxDurationMs * BYTES_PER_MS;
    this.diarizer = start.diarization ? new OnlineDiarizer() : null;
  }

  /**
   * Admits and opens a session. Throws {@link StreamingRefusal} when it cannot start; after the
   * record exists, failures end it as FAILED instead (and still resolve with the runner).
   */
  static async open(deps: StreamingDeps, identity: Identity, start: StartMessage, transport: SessionTransport, meta: ClientMeta): Promise<StreamingSessionRunner> {
    if (identity.kind !== 'user' || !identity.tenantId || !identity.userId) throw new StreamingRefusal(CLOSE.UNAUTHENTICATED, 'UNAUTHENTICATED', 'Authentication required');
    if (!identity.scopes.includes(SCOPES.sessionsWrite)) {
      throw new StreamingRefusal(CLOSE.FORBIDDEN, 'FORBIDDEN', `Missing scope: ${SCOPES.sessionsWrite}`);
    }
    const sessionId = randomUUID();
    const admission = await admit(deps, identity, start, sessionId);
    const runner = new StreamingSessionRunner(deps, identity, start, transport, sessionId, admission, identity.tenantId, identity.userId);
    try {
      await runner.begin(meta);
    } catch (e) {
      if (!runner.created) {
        // nothing happened: the reservation and the slots go back
        await admission.settle(0).catch((err: unknown) => deps.log.warn({ err, sessionId }, 'releasing an unused reservation failed'));
        await admission.release();
        throw e;
      }
      deps.log.error({ err: e, sessionId }, 'starting a streaming session failed');
      await runner.end({ state: 'FAILED', failureReason: `the session could not start: ${(e as Error).message}`, closeCode: CLOSE.INTERNAL, error: { code: 'INTERNAL_SERVER_ERROR', message: 'The session could not be started' } });
    }
    return runner;
  }

  private async begin(meta: ClientMeta): Promise<void> {
    const { resolution, recordingEnabled } = this.admission;
    await this.deps.records.create({
      id: this.sessionId, tenantId: this.tenantId, userId: this.userId,
      requestedModelAlias: resolution.requestedAlias ?? resolution.alias.alias,
      resolvedModelName: resolution.model.name, usedFallback: resolution.usedFallback, language: this.start.language,
      recordingRequested: this.start.recording, recordingEnabled, itnRequested: this.start.itn,
      diarizationRequested: this.start.diarization, interimResults: this.start.interimResults,
      clientAddress: meta.clientAddress, userAgent: meta.userAgent, metadata: this.start.metadata ?? null,
      ownerInstance: this.deps.instanceId,
    });
    this.created = true;
    this.deps.live.add(this);

    let model = resolution.model;
    let usedFallback = resolution.usedFallback;
    const candidates: { model: ModelRow; fallback: boolean }[] = [{ model, fallback: usedFallback }];
    if (resolution.fallback) candidates.push({ model: resolution.fallback, fallback: true });
    const failures: string[] = [];
    for (const c of candidates) {
      const problem = await this.connect(c.model);
      if (!problem) {
        model = c.model;
        usedFallback = c.fallback;
        break;
      }
      failures.push(`${c.model.name}: ${problem}`);
    }
    if (!this.stream) {
      this.transport.send({ type: 'error', code: 'UNAVAILABLE', message: `No engine could serve the session (${failures.join('; ')})` });
      await this.end({ state: 'FAILED', failureReason: `engine unavailable: ${failures.join('; ')}`, closeCode: CLOSE.TRY_AGAIN_LATER });
      return;
    }
    if (this.start.recording && this.admission.recordingEnabled) this.recording = this.deps.blobs.append(recordingKey(this.tenantId, this.sessionId));
    await this.deps.records.activate(this.sessionId, { resolvedModelName: model.name, usedFallback });
    this.transport.send({
      type: 'started', sessionId: this.sessionId, requestedModelAlias: resolution.requestedAlias ?? resolution.alias.alias,
      resolvedModelName: model.name, usedFallback, recording: this.recording !== null,
      limits: { maxBytesPerSecond: effectiveLimit(this.identity, 'speech-service', 'speechServiceStreamMaxBytesPerSecond'), maxDurationSeconds: Math.floor(this.admission.maxDurationMs / 1000) },
      warnings: this.admission.warnings,
    });
    void this.publish({ type: 'STARTED', state: 'ACTIVE' });
    this.touch();
    void this.consume(this.stream);
  }

  /** Health first (bounded), then the stream: null when connected, else why not. */
  private async connect(model: ModelRow): Promise<string | null> {
    let channel: Awaited<ReturnType<StreamingDeps['engines']['acquire']>> | null = null;
    try {
      // a configuration that cannot become a channel (TLS files, MTLS without a certificate) is one more reason to fall back
      channel = await this.deps.engines.acquire(model);
      const health = await channel.client.call('Health', {}, { deadlineMs: Math.min(CONNECT_TIMEOUT_MS, model.grpcDeadlineMs) });
      if (health.status !== 'SERVING') throw new Error(`engine is ${health.status}${health.message ? `: ${health.message}` : ''}`);
      const stream = channel.client.stream('StreamingRecognize');
      stream.send({ config: { format: { encoding: 'PCM_S16LE', sampleRateHz: 16000, channels: 1 }, language: this.start.language, model: '', interimResults: this.start.interimResults, requestId: this.sessionId } });
      this.stream = stream;
      this.releaseChannel = channel.release;
      return null;
    } catch (e) {
      channel?.release();
      return (e as Error).message;
    }
  }

  private async consume(stream: RecognitionStream): Promise<void> {
    try {
      for await (const message of stream) this.onEngine(message);
      // the engine closed its side: after our half-close that is the normal end
      if (this.audioClosed) {
        await this.persisting;
        const limitEnding = this.ending;
        await this.end(limitEnding ?? { state: 'FINISHED', failureReason: null, closeCode: CLOSE.NORMAL });
      } else {
        await this.end({ state: 'FAILED', failureReason: 'the engine ended the stream early', closeCode: CLOSE.INTERNAL, error: { code: 'UNAVAILABLE', message: 'The recognition engine ended the stream early' } });
      }
    } catch (e) {
      if (this.ended) return;
      const err = e as EngineCallError;
      const code = err.code === GRPC_UNAVAILABLE ? CLOSE.TRY_AGAIN_LATER : CLOSE.INTERNAL;
      await this.end({
        state: 'FAILED', failureReason: `engine error: ${err.message}`, closeCode: code,
        error: { code: err.code === GRPC_UNAVAILABLE ? 'UNAVAILABLE' : 'INTERNAL_SERVER_ERROR', message: `The recognition engine failed: ${err.details ?? err.message}` },
      });
    }
  }

  private onEngine(message: AsrStreamingRecognizeResponse): void {
    if (this.ended) return;
    if (message.partial && this.start.interimResults) {
      const p = { transcript: message.partial.transcript, startSeconds: message.partial.startSeconds };
      this.transport.send({ type: 'partial', sessionId: this.sessionId, ...p });
      void this.publish({ type: 'PARTIAL', partial: p });
    }
    if (message.segment) {
      const seg = message.segment;
      // segments are saved in engine order: each waits for the one before it
      this.persisting = this.persisting.then(() => this.saveSegment(seg)).catch((e: unknown) => {
        this.deps.log.error({ err: e, sessionId: this.sessionId }, 'saving a segment failed');
      });
    }
  }

  private async saveSegment(seg: AsrSegment): Promise<void> {
    let words: SegmentWord[] = seg.words.map((w) => ({ word: w.word, startSeconds: w.startSeconds, endSeconds: w.endSeconds, confidence: w.confidence, speakerTag: null }));
    if (this.start.itn) words = normalizeWords(words);
    if (this.diarizer && words.length > 0) {
      const tags = this.diarizer.assign(this.samplesBetween(seg.startSeconds, seg.endSeconds), words, Math.floor(seg.startSeconds * 16000) / 16000);
      words = words.map((w, i) => ({ ...w, speakerTag: tags[i] ?? null }));
    }
    const transcript = this.start.itn ? normalizedTranscript(words) : seg.transcript;
    const confidence = seg.words.length > 0 ? seg.confidence : null;
    const segmentIndex = this.segments;
    const saved = await this.deps.records.addSegment(this.sessionId, {
      segmentIndex, transcript, confidence, words: words.length > 0 ? words : null, startSeconds: seg.startSeconds, endSeconds: seg.endSeconds,
    });
    this.segments++;
    this.words += words.length;
    const segment: FinalSegment & StreamingSegmentEvent = {
      id: saved.id, segmentIndex, transcript, confidence, words: words.length > 0 ? words : null,
      startSeconds: seg.startSeconds, endSeconds: seg.endSeconds, createdAt: saved.createdAt.toISOString(),
    };
    if (!this.ended && !this.clientGone) this.transport.send({ type: 'final', sessionId: this.sessionId, segment });
    await this.publish({ type: 'SEGMENT', segment });
  }

  private samplesBetween(startSeconds: number, endSeconds: number): Int16Array {
    const from = Math.max(0, Math.floor(startSeconds * 16000) * 2);
    const to = Math.min(this.bytes, Math.ceil(endSeconds * 16000) * 2);
    const parts: Buffer[] = [];
    for (const { offset, chunk } of this.recent) {
      const a = Math.max(from, offset);
      const b = Math.min(to, offset + chunk.length);
      if (b > a) parts.push(chunk.subarray(a - offset, b - offset));
    }
    const all = Buffer.concat(parts);
    const aligned = Buffer.from(all.subarray(0, all.length - (all.length % 2)));
    return new Int16Array(aligned.buffer, aligned.byteOffset, aligned.length / 2);
  }

  /** A binary frame from the client (`buffered`: held by the edge while the engine connected, already bounded there). */
  audio(chunk: Buffer, options: { buffered?: boolean } = {}): void {
    if (this.ended || this.audioClosed || !this.stream) return;
    if (chunk.length === 0) return;
    if (chunk.length % 2 !== 0) {
      void this.fail(CLOSE.BAD_MESSAGE, 'BAD_USER_INPUT', 'Audio frames must hold whole 16-bit samples (an even number of bytes)');
      return;
    }
    if (!options.buffered && !this.bucket.tryTake(chunk.length)) {
      const limit = effectiveLimit(this.identity, 'speech-service', 'speechServiceStreamMaxBytesPerSecond');
      void this.fail(CLOSE.AUDIO_RATE, 'RATE_LIMITED', `Audio arrives faster than ${limit} bytes per second (speechServiceStreamMaxBytesPerSecond)`, { limit: 'speechServiceStreamMaxBytesPerSecond', value: limit });
      return;
    }
    let data = chunk;
    const cap = this.cap();
    const left = cap.bytes - this.bytes;
    if (data.length >= left) data = data.subarray(0, Math.max(0, left));
    if (data.length > 0) {
      this.stream.send({ audio: data });
      this.recording?.write(data);
      if (this.diarizer) {
        this.recent.push({ offset: this.bytes, chunk: Buffer.from(data) });
        const keepFrom = this.bytes - DIARIZATION_WINDOW_MS * BYTES_PER_MS;
        while (this.recent.length > 0 && (this.recent[0]?.offset ?? 0) + (this.recent[0]?.chunk.length ?? 0) < keepFrom) this.recent.shift();
      }
      this.bytes += data.length;
    }
    this.touch();
    this.reserveAhead();
    this.checkCap();
  }

  /**
   * Where audio must stop: the duration limit, or the end of the minutes reserved so far. Audio
   * past the reservation while the next one is being made is dropped (a reservation is asked for
   * five minutes of audio ahead, so only an extreme byte-rate override ever gets there).
   */
  private cap(): { bytes: number; byQuota: boolean } {
    const reserved = this.admission.reservedMs() * BYTES_PER_MS;
    return reserved < this.maxBytes ? { bytes: reserved, byQuota: true } : { bytes: this.maxBytes, byQuota: false };
  }

  private checkCap(): void {
    const cap = this.cap();
    if (this.bytes < cap.bytes || this.audioClosed || this.ended) return;
    if (cap.byQuota && this.extending) return; // decided when the reservation answers
    this.limitReached(cap.byQuota);
  }

  /** Halfway through the last reserved minutes, reserves the next ones. */
  private reserveAhead(): void {
    const reservedBytes = this.admission.reservedMs() * BYTES_PER_MS;
    if (this.extending || this.quotaExhausted || reservedBytes >= this.maxBytes) return;
    if (this.bytes < reservedBytes - (RESERVE_MINUTES * 60_000 * BYTES_PER_MS) / 2) return;
    this.extending = this.admission.extend()
      .then((more) => { if (!more) this.quotaExhausted = true; })
      .catch((e: unknown) => {
        this.quotaExhausted = true;
        this.deps.log.warn({ err: e, sessionId: this.sessionId }, 'reserving more minutes failed; the session ends with its reservation');
      })
      .finally(() => {
        this.extending = null;
        this.checkCap();
      });
  }

  /** Duration or quota cap: stop reading audio, let the engine finish, end normally. */
  private limitReached(byQuota: boolean): void {
    const error = byQuota
      ? { code: 'QUOTA_EXCEEDED', message: 'The monthly transcription minutes are used up; the session ends here', extras: { quota: 'monthlyTranscriptionMinutes' } }
      : { code: 'SESSION_DURATION_LIMIT', message: `The session reached its maximum duration of ${Math.floor(this.admission.maxDurationMs / 1000)} s (speechServiceStreamMaxSessionDurationSeconds)`, extras: { limit: 'speechServiceStreamMaxSessionDurationSeconds' } };
    this.ending = { state: 'FINISHED', failureReason: null, closeCode: byQuota ? CLOSE.QUOTA : CLOSE.NORMAL, error };
    this.finishAudio();
  }

  /** The client's `stop`. */
  stop(): void {
    if (this.ended || this.audioClosed) return;
    this.finishAudio();
  }

  private finishAudio(): void {
    this.audioClosed = true;
    this.stream?.end();
    this.drain = setTimeout(() => {
      void this.end({ state: 'FAILED', failureReason: 'the engine did not finish within 15 s after the end of audio', closeCode: CLOSE.INTERNAL, error: { code: 'UNAVAILABLE', message: 'The recognition engine did not finish in time' } });
    }, DRAIN_TIMEOUT_MS);
    this.drain.unref();
  }

  /** The client went away without `stop`. */
  disconnected(): void {
    if (this.ended) return;
    if (this.audioClosed) {
      this.clientGone = true; // `stop` was sent: the last segments are still saved, the session FINISHES
      return;
    }
    void this.end({ state: 'CANCELLED', failureReason: null, closeCode: CLOSE.NORMAL });
  }

  /** The edge is shutting down. */
  shutdown(): Promise<void> {
    return this.end({ state: 'FAILED', failureReason: 'the edge serving the session shut down', closeCode: CLOSE.GOING_AWAY, error: { code: 'UNAVAILABLE', message: 'The server is shutting down; reconnect' } });
  }

  fail(closeCode: number, code: string, message: string, extras: Record<string, unknown> = {}): Promise<void> {
    return this.end({ state: 'FAILED', failureReason: message, closeCode, error: { code, message, extras } });
  }

  private touch(): void {
    this.lastAudioAt = Date.now();
  }

  /** LiveSession: the idle timeout, checked on the process-wide heartbeat. */
  tick(now: number): void {
    if (this.ended || this.audioClosed || !this.stream) return;
    if (now - this.lastAudioAt > AUDIO_IDLE_TIMEOUT_MS) void this.fail(CLOSE.TIMEOUT, 'TIMEOUT', `No audio for ${AUDIO_IDLE_TIMEOUT_MS / 1000} s`);
  }

  /** LiveSession: an administrator disabled the tenant. */
  tenantDisabled(): void {
    void this.fail(CLOSE.FORBIDDEN, 'FORBIDDEN', 'The tenant was disabled');
  }

  /** LiveSession: another edge failed this session after its heartbeats stalled; stop without writing over that. */
  endedElsewhere(): void {
    void this.end({ state: 'FAILED', failureReason: 'the session was failed by another edge after its heartbeats stalled', closeCode: CLOSE.INTERNAL, error: { code: 'UNAVAILABLE', message: 'The session was lost; start a new one' } });
  }

  /** LiveSession: what the heartbeat records. */
  progress(): { durationMs: number; recordingBytes: number } {
    return { durationMs: Math.floor(this.bytes / BYTES_PER_MS), recordingBytes: this.recording?.bytes ?? 0 };
  }

  private publish(event: { type: 'STARTED'; state: SessionState } | { type: 'PARTIAL'; partial: { transcript: string; startSeconds: number } } | { type: 'SEGMENT'; segment: StreamingSegmentEvent } | { type: 'ENDED'; state: SessionState; failureReason: string | null }): Promise<void> {
    const base = { sessionId: this.sessionId, tenantId: this.tenantId, userId: this.userId, at: new Date().toISOString() };
    return this.deps.events.publish({ ...base, ...event }).catch((e: unknown) => {
      this.deps.log.warn({ err: e, sessionId: this.sessionId }, 'publishing a session event failed');
    });
  }

  /** The one ending: record, usage, slots, events, then the socket. Idempotent; never rejects. */
  end(ending: Ending): Promise<void> {
    this.ended ??= this.doEnd(ending);
    return this.ended;
  }

  private async doEnd(ending: Ending): Promise<void> {
    const log = (what: string) => (err: unknown) => this.deps.log.error({ err, sessionId: this.sessionId }, what);
    try {
      if (this.drain) clearTimeout(this.drain);
      this.deps.live.delete(this);
      if (ending.state !== 'FINISHED') this.stream?.cancel();
      // segments already received are saved whatever the ending (bounded: a stalled database must not hold the ending)
      await Promise.race([this.persisting, new Promise((r) => setTimeout(r, 5_000).unref())]);
      this.releaseChannel?.();
      const durationMs = Math.floor(this.bytes / BYTES_PER_MS);
      let recordingBytes = 0;
      if (this.recording) {
        recordingBytes = this.recording.bytes;
        await this.recording.close().catch(log('closing the recording failed'));
      }
      let finalState = ending.state;
      if (this.created) {
        try {
          const row = await this.deps.records.finish(this.sessionId, { state: ending.state, failureReason: ending.failureReason, durationMs, recordingBytes });
          if (!row) finalState = 'FAILED';
        } catch (e) {
          log('ending the session record failed')(e);
        }
      }
      // a reservation still being made must exist before the instalments are committed
      await this.extending;
      if (await this.admission.settle(durationMs).then(() => true, (e: unknown) => { log('usage accounting failed; the sweeper retries')(e); return false; })) {
        if (this.created) await this.deps.records.markSettled(this.sessionId).catch(log('recording the settlement failed'));
      }
      await this.admission.release().catch(log('freeing the concurrency slots failed; their leases expire'));
      this.finalState = finalState;
      if (this.created) await this.publish({ type: 'ENDED', state: finalState, failureReason: ending.failureReason });
    } finally {
      if (!this.clientGone) {
        if (ending.error) this.transport.send({ type: 'error', code: ending.error.code, message: ending.error.message, ...ending.error.extras });
        this.transport.send({
          type: 'closed', sessionId: this.sessionId, state: this.finalState ?? ending.state, durationMilliseconds: Math.floor(this.bytes / BYTES_PER_MS),
          segmentCount: this.segments, wordsCount: this.words, failureReason: ending.failureReason,
        });
      }
      this.transport.close(ending.closeCode, ending.error?.message.slice(0, 120) ?? (this.finalState ?? ending.state));
      this.resolveDone();
    }
  }

}
