import { and, eq, isNull, ne } from 'drizzle-orm';
import { ALL_SCOPES } from '@voxgate/kit';
import { hashApiKey, displayPrefix, generateApiKey } from './api-keys/key-format';
import { bumpAuthnEpoch } from './authn-epoch';
import { SYSTEM_TENANT, type TenancyDeps } from './context';
import { apiKeys, oidcProviders, tenants, users } from './db/schema';
import type { OidcProviderValues } from './oidc/provider-input';
import { ROLE_CATALOGUE } from './roles/catalogue';
import { RolesRepository } from './roles/roles.repository';

export interface BootstrapOptions {
  bootstrapApiKey?: string | undefined;
  /** The identity provider the platform was started with; it is the system tenant's unless an
   * administrator has configured another one through the API. */
  platformProvider?: OidcProviderValues | undefined;
}

const BOOTSTRAP_SUBJECT = 'voxgate:bootstrap';
const BOOTSTRAP_KEY_NAME = 'bootstrap';
/** Provider keys the platform manages itself; any other key was set by an administrator. */
const MANAGED_PROVIDER_KEYS = new Set(['dev-idp', 'platform']);

/** Idempotent: run at every start, by every starter, concurrently or not. */
export async function bootstrapTenancy(deps: TenancyDeps, opts: BootstrapOptions): Promise<{ generatedApiKey: string | null }> {
  return deps.txDb.transaction(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(7423002)');
    const repo = new RolesRepository(tx);
    const saved = new Map<string, string>();
    for (const def of ROLE_CATALOGUE) saved.set(def.slug, (await repo.upsert(def)).id);
    const sysAdmin = saved.get('system-admin') ?? '';

    await tx.insert(tenants).values({
      name: SYSTEM_TENANT, displayName: 'System', description: 'Platform operators',
      firstLoginRoleId: sysAdmin, defaultRoleId: saved.get('member') ?? '',
    }).onConflictDoNothing({ target: tenants.name });
    const [system] = await tx.select().from(tenants).where(eq(tenants.name, SYSTEM_TENANT));
    if (!system) throw new Error('system tenant missing');

    await tx.insert(users).values({
      tenantId: system.id, subject: BOOTSTRAP_SUBJECT, username: 'bootstrap', roleId: sysAdmin, isService: true,
    }).onConflictDoNothing();
    const [owner] = await tx.select().from(users).where(and(eq(users.tenantId, system.id), eq(users.subject, BOOTSTRAP_SUBJECT)));
    if (!owner) throw new Error('bootstrap user missing');

    let generatedApiKey: string | null = null;
    const scopes = [...ALL_SCOPES];
    if (opts.bootstrapApiKey) {
      const hash = hashApiKey(opts.bootstrapApiKey);
      // a new BOOTSTRAP_API_KEY replaces the previous one (and a generated first-start key)
      await tx.update(apiKeys).set({ revokedAt: new Date() })
        .where(and(eq(apiKeys.userId, owner.id), ne(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)));
      // a revoked bootstrap key stays revoked: revocation is permanent even for the operator's key
      await tx.insert(apiKeys).values({
        tenantId: system.id, userId: owner.id, name: BOOTSTRAP_KEY_NAME, description: 'From BOOTSTRAP_API_KEY',
        keyHash: hash, keyPrefix: displayPrefix(opts.bootstrapApiKey), scopes,
      }).onConflictDoUpdate({ target: apiKeys.keyHash, set: { scopes } });
    } else {
      const [existing] = await tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.userId, owner.id)).limit(1);
      if (!existing) {
        generatedApiKey = generateApiKey();
        await tx.insert(apiKeys).values({
          tenantId: system.id, userId: owner.id, name: BOOTSTRAP_KEY_NAME, description: 'Generated at first start',
          keyHash: hashApiKey(generatedApiKey), keyPrefix: displayPrefix(generatedApiKey), scopes,
        });
      }
    }

    if (opts.platformProvider) {
      const [current] = await tx.select().from(oidcProviders).where(eq(oidcProviders.tenantId, system.id));
      if (!current) {
        await tx.insert(oidcProviders).values({ tenantId: system.id, ...opts.platformProvider });
      } else if (MANAGED_PROVIDER_KEYS.has(current.providerKey)) {
        await tx.update(oidcProviders).set({ ...opts.platformProvider, updatedAt: new Date() }).where(eq(oidcProviders.id, current.id));
      }
    }
    await bumpAuthnEpoch(deps.redis);
    return { generatedApiKey };
  });
}
