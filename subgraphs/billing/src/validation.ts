import { badInput } from '@voxgate/kit';
import { QUOTA_GROUPS, RATE_LIMIT_GROUPS, minimumFor, type QuotaGroup, type QuotaValues, type RateLimitGroup, type RateLimitValues } from './limits/catalogue';

type Problem = { field: string; message: string };

function fail(problems: Problem[]): never {
  const first = problems[0];
  throw badInput(first ? `${first.field}: ${first.message}` : 'Invalid input', { fields: problems });
}

const INT_MAX = 2_147_483_647;

/** The admin rules of the spec's Limits table; every problem is reported and nothing is written. */
export function validateRateLimits(v: RateLimitValues, prefix = ''): void {
  const problems: Problem[] = [];
  for (const group of Object.keys(RATE_LIMIT_GROUPS) as RateLimitGroup[]) {
    const values = v[group] as Record<string, number | null | undefined> | null | undefined;
    if (!values) continue;
    for (const [field, value] of Object.entries(values)) {
      if (value === null || value === undefined) continue;
      const min = minimumFor(group, field);
      if (!Number.isInteger(value) || value < min || value > INT_MAX) {
        problems.push({ field: `${prefix}${group}.${field}`, message: `must be an integer of at least ${min}` });
      }
    }
  }
  const g = v.globalRequests;
  if (g !== null && g !== undefined && (!Number.isInteger(g) || g < 1 || g > INT_MAX)) {
    problems.push({ field: `${prefix}globalRequests`, message: 'must be an integer of at least 1' });
  }
  if (problems.length) fail(problems);
}

export function validateQuotas(v: QuotaValues, prefix = ''): void {
  const problems: Problem[] = [];
  for (const group of Object.keys(QUOTA_GROUPS) as QuotaGroup[]) {
    const values = v[group] as Record<string, number | null | undefined> | null | undefined;
    if (!values) continue;
    for (const [field, value] of Object.entries(values)) {
      if (value === null || value === undefined) continue;
      if (!Number.isSafeInteger(value) || value < 0) problems.push({ field: `${prefix}${group}.${field}`, message: 'must be a whole number of at least 0' });
    }
  }
  if (problems.length) fail(problems);
}
