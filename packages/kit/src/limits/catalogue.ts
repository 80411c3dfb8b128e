/**
 * The rate-limit and quota catalogues in the spec's own shape (hyphenated group keys). Stored and
 * resolved in this shape; GraphQL exposes the groups as camelCase fields and the REST facade
 * renames them back.
 */
export const RATE_LIMIT_GROUPS = {
  'speech-service': [
    'fileUploads', 'transcriptionJobExecutions', 'summaryExecutions', 'translationExecutions',
    'speechServiceStreamSessionStarts', 'speechServiceStreamMaxConcurrentSessions',
    'speechServiceStreamMaxSessionDurationSeconds', 'speechServiceStreamMaxBytesPerSecond',
    'speechServiceFileDownloadBytesPerSecond',
  ],
  'speaker-service': [
    'speakerEnrollmentCreations', 'speakerVerificationExecutions', 'speakerVoicePrintPreviews',
    'speakerVoicePrintCreations', 'speakerVoicePrintRebuildStarts', 'speakerRecordingDownloads',
  ],
  'text-service': ['textTranslationExecutions'],
  users: ['userLookup'],
} as const;

export const QUOTA_GROUPS = {
  'speech-service': [
    'storageLimit', 'monthlyTranscriptionMinutes', 'monthlySummaries', 'monthlySummaryTokens',
    'monthlyTranslations', 'monthlyTranslationTokens',
  ],
  'speaker-service': [
    'monthlySpeakerVerifications', 'monthlySpeakerEnrollments', 'monthlySpeakerVoicePrintBuilds',
    'speakerBiometricStorageLimit', 'maxSpeakers', 'maxEnrollmentsPerSpeaker', 'maxVoicePrintsPerSpeaker',
  ],
  'text-service': ['monthlyTextTranslations', 'monthlyTextTranslationTokens'],
} as const;

export type RateLimitGroup = keyof typeof RATE_LIMIT_GROUPS;
export type QuotaGroup = keyof typeof QUOTA_GROUPS;

type Fields<T extends readonly string[]> = { [K in T[number]]?: number | null };

/** RateLimitsResponse: every group and field nullable; null means "inherit". */
export type RateLimitValues = { [G in RateLimitGroup]?: Fields<(typeof RATE_LIMIT_GROUPS)[G]> | null } & { globalRequests?: number | null };
/** Resolved limits: every field has a value. */
export type EffectiveRateLimits = { [G in RateLimitGroup]: Record<(typeof RATE_LIMIT_GROUPS)[G][number], number> } & { globalRequests: number };
export type EffectiveQuotas = { [G in QuotaGroup]: Record<(typeof QUOTA_GROUPS)[G][number], number> };

/** QuotaLimitsResponse. */
export type QuotaValues = { [G in QuotaGroup]?: Fields<(typeof QUOTA_GROUPS)[G]> | null };

/**
 * Platform defaults, the last step of resolution. The speaker-service values are the spec's;
 * the others are ours (docs/limits.md).
 */
export const PLATFORM_RATE_LIMITS: Required<{ [G in RateLimitGroup]: Required<Fields<(typeof RATE_LIMIT_GROUPS)[G]>> }> & { globalRequests: number } = {
  'speech-service': {
    fileUploads: 60, transcriptionJobExecutions: 30, summaryExecutions: 30, translationExecutions: 30,
    speechServiceStreamSessionStarts: 30, speechServiceStreamMaxConcurrentSessions: 5,
    speechServiceStreamMaxSessionDurationSeconds: 14_400, speechServiceStreamMaxBytesPerSecond: 64_000,
    speechServiceFileDownloadBytesPerSecond: 10_000_000,
  },
  'speaker-service': {
    speakerEnrollmentCreations: 10, speakerVerificationExecutions: 60, speakerVoicePrintPreviews: 10,
    speakerVoicePrintCreations: 10, speakerVoicePrintRebuildStarts: 1, speakerRecordingDownloads: 30,
  },
  'text-service': { textTranslationExecutions: 60 },
  users: { userLookup: 60 },
  globalRequests: 1_200,
};

export const PLATFORM_QUOTAS: Required<{ [G in QuotaGroup]: Required<Fields<(typeof QUOTA_GROUPS)[G]>> }> = {
  'speech-service': {
    storageLimit: 10 * 1024 ** 3, monthlyTranscriptionMinutes: 6_000, monthlySummaries: 1_000, monthlySummaryTokens: 2_000_000,
    monthlyTranslations: 1_000, monthlyTranslationTokens: 2_000_000,
  },
  'speaker-service': {
    monthlySpeakerVerifications: 10_000, monthlySpeakerEnrollments: 1_000, monthlySpeakerVoicePrintBuilds: 1_000,
    speakerBiometricStorageLimit: 1024 ** 3, maxSpeakers: 1_000, maxEnrollmentsPerSpeaker: 10, maxVoicePrintsPerSpeaker: 5,
  },
  'text-service': { monthlyTextTranslations: 5_000, monthlyTextTranslationTokens: 2_000_000 },
};

/** Rate limits counted per window (the others are ceilings: concurrency, duration, byte rates). */
export type NonCounterField =
  | 'speechServiceStreamMaxConcurrentSessions' | 'speechServiceStreamMaxSessionDurationSeconds'
  | 'speechServiceStreamMaxBytesPerSecond' | 'speechServiceFileDownloadBytesPerSecond';

/** Counting windows other than the default minute. */
export const RATE_LIMIT_WINDOW_SECONDS: Partial<Record<string, number>> = {
  speakerVoicePrintRebuildStarts: 3_600, // the spec: per user every 60 minutes
};

/** Minimums an administrator may set (the spec's, plus globalRequests >= 1 so a tenant cannot lock out its own admins). */
export function minimumFor(group: RateLimitGroup | 'globalRequests', field: string): number {
  if (group === 'speaker-service') return 1;
  if (field === 'speechServiceStreamMaxBytesPerSecond') return 32_000;
  if (field === 'speechServiceFileDownloadBytesPerSecond') return 1;
  if (group === 'globalRequests') return 1;
  return 0;
}
