import { Field, Float, InputType, Int, ObjectType } from 'type-graphql';
import { QUOTA_GROUPS, RATE_LIMIT_GROUPS, type QuotaGroup, type QuotaValues, type RateLimitGroup, type RateLimitValues } from './catalogue';

/** GraphQL names cannot hold hyphens: `speech-service` is `speechService` here. */
export const GRAPH_GROUP = {
  'speech-service': 'speechService',
  'speaker-service': 'speakerService',
  'text-service': 'textService',
  users: 'users',
} as const;

type Ctor = new () => object;

/**
 * The group types are built from the catalogue (decorators applied by hand) so each field list is
 * written once. Counts are Int; quota values are 64-bit in the spec and Float here (exact to 2^53).
 */
function buildGroups<G extends string>(
  groups: Record<G, readonly string[]>, suffix: string, scalar: typeof Int | typeof Float,
): { objects: Record<G, Ctor>; inputs: Record<G, Ctor> } {
  const objects = {} as Record<G, Ctor>;
  const inputs = {} as Record<G, Ctor>;
  for (const group of Object.keys(groups) as G[]) {
    const base = GRAPH_GROUP[group as keyof typeof GRAPH_GROUP] ?? group;
    const typeName = `${base.charAt(0).toUpperCase()}${base.slice(1)}${suffix}`;
    const obj = { [typeName]: class {} }[typeName] as Ctor;
    const inp = { [`${typeName}Input`]: class {} }[`${typeName}Input`] as Ctor;
    for (const field of groups[group]) {
      Field(() => scalar, { nullable: true })(obj.prototype, field);
      Field(() => scalar, { nullable: true })(inp.prototype, field);
    }
    ObjectType(typeName)(obj);
    InputType(`${typeName}Input`)(inp);
    objects[group] = obj;
    inputs[group] = inp;
  }
  return { objects, inputs };
}

const rate = buildGroups(RATE_LIMIT_GROUPS, 'RateLimits', Int);
const quota = buildGroups(QUOTA_GROUPS, 'Quotas', Float);

export type RateLimitsGraph = {
  speechService?: Record<string, number | null> | null;
  speakerService?: Record<string, number | null> | null;
  textService?: Record<string, number | null> | null;
  users?: Record<string, number | null> | null;
  globalRequests?: number | null;
};
export type QuotasGraph = Omit<RateLimitsGraph, 'users' | 'globalRequests'>;

@ObjectType('RateLimits', { description: 'RateLimitsResponse; REST names the groups speech-service, speaker-service, text-service, users.' })
export class RateLimits {
  @Field(() => rate.objects['speech-service'], { nullable: true }) speechService?: Record<string, number | null> | null;
  @Field(() => rate.objects['speaker-service'], { nullable: true }) speakerService?: Record<string, number | null> | null;
  @Field(() => rate.objects['text-service'], { nullable: true }) textService?: Record<string, number | null> | null;
  @Field(() => rate.objects.users, { nullable: true }) users?: Record<string, number | null> | null;
  @Field(() => Int, { nullable: true, description: 'total API requests per minute across all endpoints' }) globalRequests?: number | null;
}

@InputType('RateLimitsInput', { description: 'Only provided fields change; null resets a field (or group) to inherit.' })
export class RateLimitsInput {
  @Field(() => rate.inputs['speech-service'], { nullable: true }) speechService?: Record<string, number | null> | null;
  @Field(() => rate.inputs['speaker-service'], { nullable: true }) speakerService?: Record<string, number | null> | null;
  @Field(() => rate.inputs['text-service'], { nullable: true }) textService?: Record<string, number | null> | null;
  @Field(() => rate.inputs.users, { nullable: true }) users?: Record<string, number | null> | null;
  @Field(() => Int, { nullable: true }) globalRequests?: number | null;
}

@ObjectType('QuotaLimits', { description: 'QuotaLimitsResponse (values are 64-bit); REST uses hyphenated group names.' })
export class QuotaLimits {
  @Field(() => quota.objects['speech-service'], { nullable: true }) speechService?: Record<string, number | null> | null;
  @Field(() => quota.objects['speaker-service'], { nullable: true }) speakerService?: Record<string, number | null> | null;
  @Field(() => quota.objects['text-service'], { nullable: true }) textService?: Record<string, number | null> | null;
}

@InputType('QuotaLimitsInput')
export class QuotaLimitsInput {
  @Field(() => quota.inputs['speech-service'], { nullable: true }) speechService?: Record<string, number | null> | null;
  @Field(() => quota.inputs['speaker-service'], { nullable: true }) speakerService?: Record<string, number | null> | null;
  @Field(() => quota.inputs['text-service'], { nullable: true }) textService?: Record<string, number | null> | null;
}

function plain(v: unknown): Record<string, number | null> | null | undefined {
  if (v === undefined || v === null) return v as null | undefined;
  return { ...(v as Record<string, number | null>) };
}

export function rateLimitsToGraph(v: RateLimitValues | null | undefined): RateLimits | null {
  if (!v) return null;
  return {
    speechService: plain(v['speech-service']) ?? null,
    speakerService: plain(v['speaker-service']) ?? null,
    textService: plain(v['text-service']) ?? null,
    users: plain(v.users) ?? null,
    globalRequests: v.globalRequests ?? null,
  };
}

/** Keeps the difference between an omitted field (undefined) and a reset (null). */
export function rateLimitsFromGraph(v: RateLimitsGraph): RateLimitValues {
  const out: Record<string, unknown> = {};
  for (const [group, graph] of Object.entries(GRAPH_GROUP) as [RateLimitGroup, keyof RateLimitsGraph][]) {
    const value = v[graph];
    if (value !== undefined) out[group] = plain(value);
  }
  if (v.globalRequests !== undefined) out.globalRequests = v.globalRequests;
  return out as RateLimitValues;
}

export function quotasToGraph(v: QuotaValues | null | undefined): QuotaLimits | null {
  if (!v) return null;
  return { speechService: plain(v['speech-service']) ?? null, speakerService: plain(v['speaker-service']) ?? null, textService: plain(v['text-service']) ?? null };
}

export function quotasFromGraph(v: QuotasGraph): QuotaValues {
  const out: Record<string, unknown> = {};
  for (const group of Object.keys(QUOTA_GROUPS) as QuotaGroup[]) {
    const value = v[GRAPH_GROUP[group]];
    if (value !== undefined) out[group] = plain(value);
  }
  return out as QuotaValues;
}
