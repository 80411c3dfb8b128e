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
  /** audio the session may send: the duration limit, or what is left of the monthly minutes */
  maxAudioMs: number;
  /** true when maxAudioMs comes from the quota rather than the duration limit */
  quotaCapped: boolean;
  /** Counts the audio against the monthly minutes (idempotent). */
  settle(durationMs: number): Promise<void>;
  /** Frees the concurrency slots (idempotent). */
  release(): Promise<void>;
}

export const usageSourceKey = (sessionId: string): string => `stream-session:${sessionId}`;
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
      const mine = await deps.concurrency.acquire(`stream:user:${userId}`, userMax);
      if (!mine) {
        throw new StreamingRefusal(CLOSE.LIMITED, 'RATE_LIMITED', `You already have ${userMax} streaming sessions running (speechServiceStreamMaxConcurrentSessions)`, { limit: 'speechServiceStreamMaxConcurrentSessions', value: userMax, retryAfterSeconds: 5 });
      }
      leases.push(mine);
      const tenants = await deps.concurrency.acquire(`stream:tenant:${tenantId}`, tenant.maxConcurrentSessions);
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
    const usage = await deps.ledger.usage(tenantId, userId);
    const remaining = usage.quotas.find((q) => `${q.group}.${q.quota}` === QUOTA)?.remaining ?? 0;
    if (remaining <= 0) {
      throw appError('QUOTA_EXCEEDED', `Monthly quota ${QUOTA} is used up until ${usage.periodEnd.toISOString()}`, {
        quota: QUOTA, periodEnd: usage.periodEnd.toISOString(), retryAfterSeconds: Math.max(1, Math.ceil((usage.periodEnd.getTime() - Date.now()) / 1000)),
      });
    }
    const reserveMinutes = Math.min(remaining, Math.max(1, minutesOf(maxDurationSeconds * 1000)));
    // the reservation outlives the longest possible session; the sweeper commits it after a crash
    await deps.ledger.reserve({ tenantId, userId, quota: QUOTA, amount: reserveMinutes, sourceKey: usageSourceKey(sessionId), ttlSeconds: maxDurationSeconds + 900 });
    const quotaMs = reserveMinutes * 60_000;
    const durationMs = maxDurationSeconds * 1000;

    const warnings: string[] = [];
    const recordingEnabled = start.recording && tenant.recordingEnabled;
    if (start.recording && !tenant.recordingEnabled) warnings.push('Recording is not enabled for this tenant (speechServiceSessionRecordingEnabled): the session runs unrecorded');
    if (resolution.deprecation.deprecated) {
      warnings.push(`Model alias "${resolution.alias.alias}" is deprecated${resolution.deprecation.sunsetDate ? ` and will be removed on ${resolution.deprecation.sunsetDate.toISOString()}` : ''}${resolution.deprecation.message ? `: ${resolution.deprecation.message}` : ''}`);
    }
    let settled = false;
    return {
      resolution, recordingEnabled, warnings,
      maxAudioMs: Math.min(durationMs, quotaMs), quotaCapped: quotaMs < durationMs,
      settle: async (ms) => {
        if (settled) return;
        await deps.ledger.commit({ tenantId, sourceKey: usageSourceKey(sessionId), amount: minutesOf(ms) });
        settled = true;
      },
      release,
    };
  } catch (e) {
    await release();
    throw refusal(e);
  }
}
