import { and, asc, eq } from 'drizzle-orm';
import { badInput, conflict, isScope, isUniqueViolation, isUuid, notFound, type Identity } from '@voxgate/kit';
import { bumpLimitsEpoch, tenantOf, type BillingDeps } from '../context';
import { plans, type PlanRow } from '../db/schema';
import { quotasFromGraph, rateLimitsFromGraph, type QuotasGraph, type RateLimitsGraph } from '../limits/limit.types';
import { validateQuotas, validateRateLimits } from '../validation';

const SLUG_RE = /^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

export interface PlanInput {
  slug?: string;
  name?: string | null;
  active?: boolean | null;
  displayOrder?: number | null;
  quotas?: QuotasGraph | null;
  rateLimits?: RateLimitsGraph | null;
  permissions?: string[] | null;
}

function field(name: string, message: string): never {
  throw badInput(`${name}: ${message}`, { fields: [{ field: name, message }] });
}

function checkCommon(input: PlanInput): void {
  if (input.name !== undefined && input.name !== null && (input.name.trim() === '' || input.name.length > 100)) field('name', 'must be 1 to 100 characters');
  if (input.displayOrder !== undefined && input.displayOrder !== null && (input.displayOrder < 0 || input.displayOrder > 1_000_000)) field('displayOrder', 'must be between 0 and 1000000');
  if (input.permissions) {
    const unknown = input.permissions.filter((p) => !isScope(p));
    if (unknown.length) field('permissions', `unknown scope ${unknown.join(', ')}`);
  }
  if (input.rateLimits) validateRateLimits(rateLimitsFromGraph(input.rateLimits), 'rateLimits.');
  if (input.quotas) validateQuotas(quotasFromGraph(input.quotas), 'quotas.');
}

export class PlansService {
  constructor(private readonly deps: BillingDeps) {}

  /** Plans users can subscribe to, in display order. */
  async listActive(identity: Identity): Promise<PlanRow[]> {
    return this.deps.db.select().from(plans)
      .where(and(eq(plans.tenantId, tenantOf(identity)), eq(plans.active, true)))
      .orderBy(asc(plans.displayOrder), asc(plans.name));
  }

  async activeBySlug(identity: Identity, slug: string): Promise<PlanRow> {
    const [row] = await this.deps.db.select().from(plans)
      .where(and(eq(plans.tenantId, tenantOf(identity)), eq(plans.slug, slug), eq(plans.active, true)));
    if (!row) throw notFound('Subscription plan');
    return row;
  }

  async listAll(identity: Identity): Promise<PlanRow[]> {
    return this.deps.db.select().from(plans).where(eq(plans.tenantId, tenantOf(identity))).orderBy(asc(plans.displayOrder), asc(plans.name));
  }

  private async own(identity: Identity, id: string): Promise<PlanRow> {
    if (!isUuid(id)) throw notFound('Subscription plan');
    const [row] = await this.deps.db.select().from(plans).where(and(eq(plans.tenantId, tenantOf(identity)), eq(plans.id, id.toLowerCase())));
    if (!row) throw notFound('Subscription plan');
    return row;
  }

  async create(identity: Identity, input: PlanInput): Promise<PlanRow> {
    if (!input.slug || !SLUG_RE.test(input.slug)) field('slug', 'must be a slug of at most 64 characters');
    if (!input.name) field('name', 'is required');
    checkCommon(input);
    try {
      const [row] = await this.deps.db.insert(plans).values({
        tenantId: tenantOf(identity), slug: input.slug, name: input.name.trim(), active: input.active ?? true,
        displayOrder: input.displayOrder ?? 0,
        quotas: input.quotas ? quotasFromGraph(input.quotas) : null,
        rateLimits: input.rateLimits ? rateLimitsFromGraph(input.rateLimits) : null,
        permissions: [...new Set(input.permissions ?? [])],
      }).returning();
      if (!row) throw new Error('plan not saved');
      return row;
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`A plan with slug "${input.slug}" already exists`);
      throw e;
    }
  }

  async update(identity: Identity, id: string, input: PlanInput): Promise<PlanRow> {
    const current = await this.own(identity, id);
    checkCommon(input);
    const set: Partial<typeof plans.$inferInsert> = { updatedAt: new Date() };
    if (input.name != null) set.name = input.name.trim();
    if (input.active != null) set.active = input.active;
    if (input.displayOrder != null) set.displayOrder = input.displayOrder;
    if (input.quotas !== undefined) set.quotas = input.quotas ? quotasFromGraph(input.quotas) : null;
    if (input.rateLimits !== undefined) set.rateLimits = input.rateLimits ? rateLimitsFromGraph(input.rateLimits) : null;
    if (input.permissions != null) set.permissions = [...new Set(input.permissions)];
    const [row] = await this.deps.db.update(plans).set(set).where(eq(plans.id, current.id)).returning();
    if (!row) throw notFound('Subscription plan');
    // subscribers' effective limits may have changed
    await bumpLimitsEpoch(this.deps.redis);
    return row;
  }
}
