import { appError, effectiveLimit, type Identity, type Lease } from '@voxgate/kit';
import { AliasResolution, type Resolution } from '@voxgate/speaker-models';
import { GraphQLError } from 'graphql';
import { CLOSE, CLOSE_FOR_CODE, StreamingRefusal, type StartMessage } from './protocol';
import type { StreamingDeps } from './streaming-deps';

const QUOTA = 'speech-service.monthlyTranscriptionMinutes';

/** What a session was admitted with, and how to settle and free it at the end. */
export interface Admission {
  resolution: Resolution;
  recordingEnabled: boolean;
  warnings: string[];
  /** the duration limit (speechServiceStreamMaxSessionDurationSeconds), in ms of audio */
  maxDurationMs: number;
  /** audio covered by the monthly minutes reserved so far */
  reservedMs(): number;
  /** Reserves the next instalment of minutes; false when the quota has nothing left. */
  extend(): Promise<boolean>;
  /** Counts the audio against the monthly minutes (idempotent). */
  settle(durationMs: number): Promise<void>;
  /** Frees the concurrency slots (idempotent). */
  release(): Promise<void>;
}

/**
 * Minutes reserved at a time. A session reserves as it goes rather than its whole duration limit
 * up front: at the 4-hour default that would hold 240 minutes per session and refuse the 26th
 * parallel session of a 6,000-minute plan with nothing used.
 */
export const RESERVE_MINUTES = 10;

export const usageSourceKey = (sessionId: string): string => `stream-session:${sessionId}`;
/** Concurrency slots of running sessions; each session holds one in each, under its own id. */
export const userSlotKey = (userId: string): string => `stream:user:${userId}`;
export const tenantSlotKey = (tenantId: string): string => `stream:tenant:${tenantId}`;
/** A session counts whole minutes, rounded up; a session without audio counts nothing. */
export const minutesOf = (durationMs: number): number => Math.ceil(durationMs / 60_000);

function refusal(e: unknown): StreamingRefusal {
  if (e instanceof StreamingRefusal) return e;
  if (e instanceof GraphQLError) {
    const code = String(e.extensions.code ?? 'INTERNAL_SERVER_ERROR');
    const { code: _c, ...extras } = e.extensions;
    return new StreamingRefusal(CLOSE_FOR_CODE[code] ?? CLOSE.INTERNAL, code, e.message, extras);
  }
  throw e;
}

/**
 * The checks before a session exists, cheapest first: tenant, concurrency (user, then tenant),
 * session starts per minute, the model alias, then the monthly minutes. Any refusal frees what was
 * taken before it.
 */
export async function admit(deps: StreamingDeps, identity: Identity, start: StartMessage, sessionId: string): Promise<Admission> {
  const tenantId = identity.tenantId as string;
  const userId = identity.userId as string;
  const leases: Lease[] = [];
  const release = async () => {
    const all = leases.splice(0);
    await Promise.all(all.map((l) => l.release()));
  };
  try {
    const tenant = await deps.tenants.settings(tenantId);
    if (!tenant?.enabled) throw new StreamingRefusal(CLOSE.FORBIDDEN, 'FORBIDDEN', 'The tenant is disabled');

    if (deps.concurrency) {
      const userMax = effectiveLimit(identity, 'speech-service', 'speechServiceStreamMaxConcurrentSessions');
      const mine = await deps.concurrency.acquire(userSlotKey(userId), userMax, { id: sessionId });
      if (!mine) {
        throw new StreamingRefusal(CLOSE.LIMITED, 'RATE_LIMITED', `You already have ${userMax} streaming sessions running (speechServiceStreamMaxConcurrentSessions)`, { limit: 'speechServiceStreamMaxConcurrentSessions', value: userMax, retryAfterSeconds: 5 });
      }
      leases.push(mine);
      const tenants = await deps.concurrency.acquire(tenantSlotKey(tenantId), tenant.maxConcurrentSessions, { id: sessionId });
      if (!tenants) {
        throw new StreamingRefusal(CLOSE.LIMITED, 'RATE_LIMITED', `The tenant already has ${tenant.maxConcurrentSessions} streaming sessions running (speechServiceSessionMaxConcurrent)`, { limit: 'speechServiceSessionMaxConcurrent', value: tenant.maxConcurrentSessions, retryAfterSeconds: 5 });
      }
      leases.push(tenants);
    }
    if (deps.limiter) {
      const perMinute = effectiveLimit(identity, 'speech-service', 'speechServiceStreamSessionStarts');
      const d = await deps.limiter.hit(`op:speech-service.speechServiceStreamSessionStarts:${userId}`, perMinute, { windowSeconds: 60 });
      if (!d.allowed) {
        throw new StreamingRefusal(CLOSE.LIMITED, 'RATE_LIMITED', `Too many session starts: ${d.limit} per minute (speechServiceStreamSessionStarts); retry in ${d.retryAfterSeconds} s`, { limit: 'speechServiceStreamSessionStarts', value: d.limit, retryAfterSeconds: d.retryAfterSeconds });
      }
    }

    const resolution = await new AliasResolution(deps.models, 'asr').resolve({ tenantId, alias: start.model ?? null, hierarchyOrder: identity.hierarchyOrder });
    const locales = resolution.model.supportedLocales ?? [];
    if (locales.length > 0 && !locales.some((l) => l.toLowerCase() === start.language.toLowerCase())) {
      throw appError('BAD_USER_INPUT', `Model "${resolution.model.name}" does not support language ${start.language} (supported: ${locales.join(', ')})`);
    }

    const maxDurationSeconds = effectiveLimit(identity, 'speech-service', 'speechServiceStreamMaxSessionDurationSeconds');
    const maxDurationMinutes = Math.max(1, minutesOf(maxDurationSeconds * 1000));
    // the reservations outlive the longest possible session; the sweeper commits them after a crash
    const ttlSeconds = maxDurationSeconds + 900;
    /**
     * Reserves `amount` minutes, or what is left when that is less: the ledger's refusal names the
     * limit and the usage, so the common case costs one call and no separate usage read. Resolves
     * to the minutes reserved; rejects with the ledger's QUOTA_EXCEEDED when nothing is left.
     */
    const reserveUpTo = async (amount: number, sourceKey: string): Promise<number> => {
      try {
        await deps.ledger.reserve({ tenantId, userId, quota: QUOTA, amount, sourceKey, ttlSeconds });
        return amount;
      } catch (e) {
        const left = e instanceof GraphQLError && e.extensions.code === 'QUOTA_EXCEEDED' ? Number(e.extensions.limit) - Number(e.extensions.used) : 0;
        if (!(left > 0 && left < amount)) throw e;
        await deps.ledger.reserve({ tenantId, userId, quota: QUOTA, amount: left, sourceKey, ttlSeconds });
        return left;
      }
    };
    let reservedMinutes = await reserveUpTo(Math.min(RESERVE_MINUTES, maxDurationMinutes), usageSourceKey(sessionId));
    let instalments = 1;
    const extend = async (): Promise<boolean> => {
      const amount = Math.min(RESERVE_MINUTES, maxDurationMinutes - reservedMinutes);
      if (amount <= 0) return false;
      try {
        reservedMinutes += await reserveUpTo(amount, `${usageSourceKey(sessionId)}:${instalments + 1}`);
      } catch (e) {
        if (e instanceof GraphQLError && e.extensions.code === 'QUOTA_EXCEEDED') return false;
        throw e;
      }
      instalments++;
      return true;
    };

    const warnings: string[] = [];
    const recordingEnabled = start.recording && tenant.recordingEnabled;
    if (start.recording && !tenant.recordingEnabled) warnings.push('Recording is not enabled for this tenant (speechServiceSessionRecordingEnabled): the session runs unrecorded');
    if (resolution.deprecation.deprecated) {
      warnings.push(`Model alias "${resolution.alias.alias}" is deprecated${resolution.deprecation.sunsetDate ? ` and will be removed on ${resolution.deprecation.sunsetDate.toISOString()}` : ''}${resolution.deprecation.message ? `: ${resolution.deprecation.message}` : ''}`);
    }
    let settled = false;
    return {
      resolution, recordingEnabled, warnings,
      maxDurationMs: maxDurationSeconds * 1000,
      reservedMs: () => reservedMinutes * 60_000,
      extend,
      settle: async (ms) => {
        if (settled) return;
        await deps.ledger.commitInstalments({ tenantId, sourceKey: usageSourceKey(sessionId), amount: minutesOf(ms) });
        settled = true;
      },
      release,
    };
  } catch (e) {
    await release();
    throw refusal(e);
  }
}
