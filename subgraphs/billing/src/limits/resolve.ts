import { PLATFORM_RATE_LIMITS, RATE_LIMIT_GROUPS, type EffectiveQuotas, type EffectiveRateLimits, type RateLimitGroup, type RateLimitValues, QUOTA_GROUPS, PLATFORM_QUOTAS, type QuotaGroup, type QuotaValues } from './catalogue';

type Layer = RateLimitValues | null | undefined;

function pick(layer: Layer, group: RateLimitGroup, field: string): number | null | undefined {
  const g = layer?.[group] as Record<string, number | null | undefined> | null | undefined;
  return g?.[field];
}

/** First non-null value per field: the layers go from most to least specific; the platform closes. */
export function resolveRateLimits(...layers: Layer[]): EffectiveRateLimits {
  const out: Record<string, unknown> = {};
  for (const group of Object.keys(RATE_LIMIT_GROUPS) as RateLimitGroup[]) {
    const fields: Record<string, number> = {};
    for (const field of RATE_LIMIT_GROUPS[group]) {
      let value: number | null | undefined;
      for (const layer of layers) {
        value = pick(layer, group, field);
        if (value !== null && value !== undefined) break;
      }
      fields[field] = value ?? (PLATFORM_RATE_LIMITS[group] as Record<string, number>)[field] ?? 0;
    }
    out[group] = fields;
  }
  out.globalRequests = layers.map((l) => l?.globalRequests).find((v) => v !== null && v !== undefined) ?? PLATFORM_RATE_LIMITS.globalRequests;
  return out as EffectiveRateLimits;
}

export function resolveQuotas(...layers: (QuotaValues | null | undefined)[]): EffectiveQuotas {
  const out: Record<string, unknown> = {};
  for (const group of Object.keys(QUOTA_GROUPS) as QuotaGroup[]) {
    const fields: Record<string, number> = {};
    for (const field of QUOTA_GROUPS[group]) {
      let value: number | null | undefined;
      for (const layer of layers) {
        value = (layer?.[group] as Record<string, number | null | undefined> | null | undefined)?.[field];
        if (value !== null && value !== undefined) break;
      }
      fields[field] = value ?? (PLATFORM_QUOTAS[group] as Record<string, number>)[field] ?? 0;
    }
    out[group] = fields;
  }
  return out as EffectiveQuotas;
}

/** One level as stored, every field present: null means "inherit from the level below". */
export function rateLimitLayer(v: RateLimitValues | null | undefined): RateLimitValues {
  const out: Record<string, unknown> = {};
  for (const group of Object.keys(RATE_LIMIT_GROUPS) as RateLimitGroup[]) {
    const stored = (v?.[group] ?? {}) as Record<string, number | null | undefined>;
    out[group] = Object.fromEntries(RATE_LIMIT_GROUPS[group].map((f) => [f, stored[f] ?? null]));
  }
  out.globalRequests = v?.globalRequests ?? null;
  return out as RateLimitValues;
}

export function quotaLayer(v: QuotaValues | null | undefined): QuotaValues {
  const out: Record<string, unknown> = {};
  for (const group of Object.keys(QUOTA_GROUPS) as QuotaGroup[]) {
    const stored = (v?.[group] ?? {}) as Record<string, number | null | undefined>;
    out[group] = Object.fromEntries(QUOTA_GROUPS[group].map((f) => [f, stored[f] ?? null]));
  }
  return out as QuotaValues;
}

/** Applies a PATCH: provided fields replace, null clears (back to inherit), omitted stay. */
export function mergeRateLimits(current: RateLimitValues, patch: RateLimitValues): RateLimitValues {
  const next: Record<string, unknown> = { ...current };
  for (const group of Object.keys(RATE_LIMIT_GROUPS) as RateLimitGroup[]) {
    const p = patch[group];
    if (p === undefined) continue;
    if (p === null) { delete next[group]; continue; }
    const merged: Record<string, number | null | undefined> = { ...((current[group] as Record<string, number | null>) ?? {}) };
    for (const [field, value] of Object.entries(p)) {
      if (value === undefined) continue;
      if (value === null) delete merged[field];
      else merged[field] = value;
    }
    next[group] = merged;
  }
  if (patch.globalRequests !== undefined) {
    if (patch.globalRequests === null) delete next.globalRequests;
    else next.globalRequests = patch.globalRequests;
  }
  return next as RateLimitValues;
}
