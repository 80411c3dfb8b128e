import { and, eq, or, sql } from 'drizzle-orm';
import type { Database } from '@voxgate/kit';
import type { SpeakerModelsDeps } from './context';
import { modelAliases, models, seededFamilies, type ModelFamily } from './db/schema';

/** What seeding needs: the pools and the reference engine (absent or null: nothing is seeded). */
export type SeedingDeps = Pick<SpeakerModelsDeps, 'db'> & Partial<Pick<SpeakerModelsDeps, 'txDb' | 'asrReferenceEngine'>>;

/** The model and alias every tenant gets for the platform's reference ASR engine (engines/asr). */
export const ASR_REFERENCE_MODEL = {
  name: 'pocketsphinx-en-us',
  displayName: 'PocketSphinx US English (reference engine)',
  supportedLocales: ['en-US'],
  deadlineMs: 5_000,
} as const;
export const ASR_REFERENCE_ALIAS = 'default';

/**
 * Tenants this process knows to be seeded, per database handle (so two platforms in one process,
 * as in tests, never share an answer), and seedings in flight, so parallel first reads of one
 * tenant (e.g. two nested Tenant fields) share one transaction.
 */
const seeded = new WeakMap<Database, Set<string>>();
const inFlight = new WeakMap<Database, Map<string, Promise<boolean>>>();

function perDb<T>(map: WeakMap<Database, T>, db: Database, make: () => T): T {
  let v = map.get(db);
  if (!v) { v = make(); map.set(db, v); }
  return v;
}

/**
 * Gives the tenant the reference ASR engine's model (`pocketsphinx-en-us`, AVAILABLE, en-US,
 * PLAINTEXT to `asrReferenceEngine.target`) and an alias `default` (FAMILY, the tenant's default)
 * resolving to it, exactly once per tenant: the claim is a row in `seeded_families` inserted with
 * ON CONFLICT DO NOTHING in the same transaction as the records, so concurrent first reads (in any
 * number of processes) seed once, and an administrator who later deletes the records is not
 * overruled. A tenant that already configured ASR before the reference engine was enabled keeps
 * its own records: a model or alias of the same name is left alone, and the seeded alias becomes
 * the default only when the tenant has none. Without `asrReferenceEngine` nothing happens.
 * Resolves to true when this call seeded the tenant.
 */
export async function seedAsrReferenceModels(deps: SeedingDeps, tenantId: string): Promise<boolean> {
  const engine = deps.asrReferenceEngine;
  if (!engine) return false;
  const done = perDb(seeded, deps.db, () => new Set<string>());
  if (done.has(tenantId)) return false;
  const pending = perDb(inFlight, deps.db, () => new Map<string, Promise<boolean>>());
  const running = pending.get(tenantId);
  if (running) {
    await running;
    return false;
  }
  const work = seedOnce(deps.txDb ?? deps.db, engine.target, tenantId);
  pending.set(tenantId, work);
  try {
    const created = await work;
    done.add(tenantId);
    return created;
  } finally {
    pending.delete(tenantId);
  }
}

async function seedOnce(db: Database, target: string, tenantId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [claim] = await tx.insert(seededFamilies).values({ tenantId, family: 'asr' }).onConflictDoNothing()
      .returning({ tenantId: seededFamilies.tenantId });
    if (!claim) return false;
    // the same lock alias writes take, so the default-alias decision below cannot race one
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`aliases:${tenantId}:asr`}))`);
    const [model] = await tx.insert(models).values({
      tenantId, family: 'asr', name: ASR_REFERENCE_MODEL.name, displayName: ASR_REFERENCE_MODEL.displayName,
      description: 'The platform\'s reference speech-recognition engine (pocketsphinx), registered automatically.',
      status: 'AVAILABLE', supportedLocales: [...ASR_REFERENCE_MODEL.supportedLocales], grpcTarget: target,
      grpcTlsMode: 'PLAINTEXT', grpcDeadlineMs: ASR_REFERENCE_MODEL.deadlineMs,
    }).onConflictDoNothing().returning({ id: models.id });
    if (!model) return true;
    const existing = await tx.select({ alias: modelAliases.alias, isDefault: modelAliases.isDefault }).from(modelAliases)
      .where(and(eq(modelAliases.tenantId, tenantId), eq(modelAliases.family, 'asr'),
        or(eq(modelAliases.alias, ASR_REFERENCE_ALIAS), eq(modelAliases.isDefault, true))));
    if (existing.some((a) => a.alias === ASR_REFERENCE_ALIAS)) return true;
    await tx.insert(modelAliases).values({
      tenantId, family: 'asr', alias: ASR_REFERENCE_ALIAS, type: 'FAMILY', displayName: 'Default speech recognition',
      description: 'Seeded with the reference engine; re-resolve it to your own model at any time.',
      resolvedModelId: model.id, isDefault: !existing.some((a) => a.isDefault),
    });
    return true;
  });
}

/** Called on every read or write path of a family before it touches the tenant's records. */
export async function ensureFamilySeeded(deps: SeedingDeps, tenantId: string, family: ModelFamily): Promise<void> {
  if (family === 'asr') await seedAsrReferenceModels(deps, tenantId);
}
