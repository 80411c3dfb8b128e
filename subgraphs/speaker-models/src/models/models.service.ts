import { and, asc, count, eq, inArray, or, sql } from 'drizzle-orm';
import { conflict, isForeignKeyViolation, isUniqueViolation, notFound, type Identity } from '@voxgate/kit';
import { tenantOf, type SpeakerModelsDeps } from '../context';
import { enrollments, modelAliases, models, verifications, voicePrints, type ModelFamily, type ModelRow, type ModelStatus, type ThresholdDefaults, type TlsMode } from '../db/schema';
import { ensureFamilySeeded, type SeedingDeps } from '../seeding';
import { checkGrpc, checkLocales, checkName, checkPositiveInt, checkText, checkThresholds, EMBEDDING_GRPC_FIELDS, Problems, SENTVER_GRPC_FIELDS } from '../shared/validation';

/** A model's editable configuration in storage terms, whichever family's request it came from. */
export interface ModelConfig {
  displayName: string;
  description: string | null;
  supportedLocales: string[] | null;
  maxExpectedTextLength: number | null;
  grpcTarget: string;
  grpcTlsMode: TlsMode;
  grpcAuthority: string | null;
  grpcDeadlineMs: number;
  grpcMaxInboundMessageBytes: number | null;
  grpcMetadata: Record<string, string> | null;
  thresholdDefaults: ThresholdDefaults | null;
}

export const FAMILY_LABEL: Record<ModelFamily, string> = {
  sentver: 'Sentence-verification model', embedding: 'Speaker-embedding model', asr: 'Speech-recognition model',
};

export class ModelsService {
  constructor(private readonly deps: Pick<SpeakerModelsDeps, 'db' | 'txDb'> & SeedingDeps, private readonly family: ModelFamily) {}

  /** The caller's tenant, seeded first (ASR: the reference engine) so every path sees the same records. */
  private async tenant(identity: Identity): Promise<string> {
    const tenantId = tenantOf(identity);
    await ensureFamilySeeded(this.deps, tenantId, this.family);
    return tenantId;
  }

  validate(p: Problems, c: ModelConfig, opts: { localesRequired: boolean }): void {
    checkText(p, 'displayName', c.displayName, 128, true);
    checkText(p, 'description', c.description, 1024, false);
    checkLocales(p, 'supportedLocales', c.supportedLocales, opts.localesRequired);
    checkPositiveInt(p, 'maxExpectedTextLength', c.maxExpectedTextLength, false);
    checkThresholds(p, 'thresholdDefaults', c.thresholdDefaults);
    // sentver and ASR requests carry flat grpc* fields, embedding requests a grpc object
    checkGrpc(p, this.family === 'embedding' ? EMBEDDING_GRPC_FIELDS : SENTVER_GRPC_FIELDS, {
      target: c.grpcTarget, tlsMode: c.grpcTlsMode, authority: c.grpcAuthority, deadlineMs: c.grpcDeadlineMs,
      maxInboundMessageBytes: c.grpcMaxInboundMessageBytes, metadata: c.grpcMetadata,
    });
  }

  async list(identity: Identity): Promise<ModelRow[]> {
    const tenantId = await this.tenant(identity);
    return this.deps.db.select().from(models)
      .where(and(eq(models.tenantId, tenantId), eq(models.family, this.family)))
      .orderBy(asc(models.name));
  }

  async get(identity: Identity, name: string): Promise<ModelRow> {
    const tenantId = await this.tenant(identity);
    const [row] = await this.deps.db.select().from(models)
      .where(and(eq(models.tenantId, tenantId), eq(models.family, this.family), eq(models.name, name)));
    if (!row) throw notFound(FAMILY_LABEL[this.family]);
    return row;
  }

  async register(identity: Identity, name: string, status: ModelStatus, config: ModelConfig, localesRequired: boolean): Promise<ModelRow> {
    const p = new Problems();
    checkName(p, 'name', name);
    this.validate(p, config, { localesRequired });
    p.throwIfAny();
    const tenantId = await this.tenant(identity);
    const now = new Date();
    try {
      const [row] = await this.deps.db.insert(models).values({
        tenantId, family: this.family, name, status, ...config,
        deprecatedAt: status === 'DEPRECATED' ? now : null, inactiveAt: status === 'INACTIVE' ? now : null,
      }).returning();
      if (!row) throw new Error('model not saved');
      return row;
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`A model named "${name}" already exists`);
      throw e;
    }
  }

  /** PUT semantics: the whole editable configuration is replaced; omitted nullable fields are cleared. */
  async replace(identity: Identity, name: string, config: ModelConfig, localesRequired: boolean): Promise<ModelRow> {
    const current = await this.get(identity, name);
    const p = new Problems();
    this.validate(p, config, { localesRequired });
    p.throwIfAny();
    const [row] = await this.deps.db.update(models).set({ ...config, updatedAt: new Date() }).where(eq(models.id, current.id)).returning();
    if (!row) throw notFound(FAMILY_LABEL[this.family]);
    return row;
  }

  /**
   * Status changes only here. DEPRECATED records when deprecation started; INACTIVE records
   * `inactiveAt` (the start of voice-print retention for embedding models). Leaving a state clears its time.
   */
  async setStatus(identity: Identity, name: string, status: ModelStatus, statusMessage: string | null): Promise<ModelRow> {
    const p = new Problems();
    checkText(p, 'statusMessage', statusMessage, 1024, false);
    p.throwIfAny();
    const current = await this.get(identity, name);
    const now = new Date();
    const [row] = await this.deps.db.update(models).set({
      status, statusMessage, updatedAt: now,
      deprecatedAt: status === 'DEPRECATED' ? (current.status === 'DEPRECATED' ? current.deprecatedAt : now) : null,
      inactiveAt: status === 'INACTIVE' ? (current.status === 'INACTIVE' ? current.inactiveAt : now) : null,
    }).where(eq(models.id, current.id)).returning();
    if (!row) throw notFound(FAMILY_LABEL[this.family]);
    return row;
  }

  /** Refused (409) while an alias or a retained record references the model. */
  async remove(identity: Identity, name: string): Promise<void> {
    const model = await this.get(identity, name);
    const [aliasRef] = await this.deps.db.select({ alias: modelAliases.alias }).from(modelAliases)
      .where(or(eq(modelAliases.resolvedModelId, model.id), eq(modelAliases.fallbackModelId, model.id))).limit(1);
    if (aliasRef) throw conflict(`Model "${name}" is referenced by alias "${aliasRef.alias}"; re-resolve or delete the alias first`);
    const retained = await this.retainedCounts([model.id]);
    const r = retained.get(model.id);
    if (r && (r.voicePrints > 0 || r.enrollments > 0 || r.verifications > 0)) {
      throw conflict(`Model "${name}" is referenced by retained records (${r.voicePrints} voice prints, ${r.enrollments} enrollments, ${r.verifications} verifications)`);
    }
    try {
      await this.deps.db.delete(models).where(eq(models.id, model.id));
    } catch (e) {
      // a reference created between the check and the delete is still refused by the foreign keys
      if (isForeignKeyViolation(e)) throw conflict(`Model "${name}" is still referenced`);
      throw e;
    }
  }

  /** Records that keep a model alive (all, deleted or not, until purged) and the spec's live voice-print counts. */
  async retainedCounts(modelIds: string[]): Promise<Map<string, { voicePrints: number; enrollments: number; verifications: number; activeVoicePrints: number; defaultSpeakers: number }>> {
    const out = new Map<string, { voicePrints: number; enrollments: number; verifications: number; activeVoicePrints: number; defaultSpeakers: number }>();
    for (const id of modelIds) out.set(id, { voicePrints: 0, enrollments: 0, verifications: 0, activeVoicePrints: 0, defaultSpeakers: 0 });
    if (modelIds.length === 0) return out;
    const [vp, en, ve] = await Promise.all([
      this.deps.db.select({
        id: voicePrints.resolvedModelId,
        all: count(),
        active: sql<number>`count(*) filter (where ${voicePrints.active} and ${voicePrints.deletedAt} is null)`,
        defaults: sql<number>`count(distinct ${voicePrints.speakerId}) filter (where ${voicePrints.isDefault} and ${voicePrints.active} and ${voicePrints.deletedAt} is null)`,
      }).from(voicePrints).where(inArray(voicePrints.resolvedModelId, modelIds)).groupBy(voicePrints.resolvedModelId),
      this.deps.db.select({ id: enrollments.resolvedModelId, n: count() }).from(enrollments).where(inArray(enrollments.resolvedModelId, modelIds)).groupBy(enrollments.resolvedModelId),
      this.deps.db.select({ id: verifications.resolvedModelId, n: count() }).from(verifications).where(inArray(verifications.resolvedModelId, modelIds)).groupBy(verifications.resolvedModelId),
    ]);
    for (const r of vp) { const o = out.get(r.id); if (o) { o.voicePrints = Number(r.all); o.activeVoicePrints = Number(r.active); o.defaultSpeakers = Number(r.defaults); } }
    for (const r of en) { const o = out.get(r.id); if (o) o.enrollments = Number(r.n); }
    for (const r of ve) { const o = out.get(r.id); if (o) o.verifications = Number(r.n); }
    return out;
  }
}


