import { and, asc, eq, isNull } from 'drizzle-orm';
import { badInput, isScope, isUuid, notFound, type Identity } from '@voxgate/kit';
import { z } from 'zod';
import { bumpAuthnEpoch } from '../authn-epoch';
import { isSystemCaller, type TenancyDeps } from '../context';
import { apiKeys, roles, users, type ApiKeyRow } from '../db/schema';
import { parseInput } from '../validation';
import { displayPrefix, generateApiKey, hashApiKey } from './key-format';

const createSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  description: z.string().max(500, 'must be at most 500 characters').nullish(),
  expiresAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp' }).nullish(),
  scopes: z.array(z.string()).max(100).nullish(),
});

export class ApiKeysService {
  constructor(private readonly deps: TenancyDeps) {}

  /**
   * Scopes must lie within what the caller holds right now (their role's scopes, narrowed further
   * when the caller itself uses a scoped key), so a key can never mint a broader key.
   */
  async create(identity: Identity, raw: unknown): Promise<{ row: ApiKeyRow; key: string }> {
    const input = parseInput(createSchema, raw);
    const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw badInput('expiresAt: must be in the future', { fields: [{ field: 'expiresAt', message: 'in the past' }] });
    }
    let scopes: string[] | null = null;
    if (input.scopes && input.scopes.length > 0) {
      const unique = [...new Set(input.scopes)];
      const unknown = unique.filter((s) => !isScope(s));
      if (unknown.length) throw badInput(`scopes: unknown scope ${unknown.join(', ')}`, { fields: [{ field: 'scopes', message: 'unknown scope' }] });
      const outside = unique.filter((s) => !identity.scopes.includes(s));
      if (outside.length) {
        throw badInput(`scopes: outside your own permissions: ${outside.join(', ')}`, { fields: [{ field: 'scopes', message: 'not held by the creator' }] });
      }
      scopes = unique;
    }
    const key = generateApiKey();
    const [row] = await this.deps.db.insert(apiKeys).values({
      tenantId: identity.tenantId ?? '', userId: identity.userId ?? '', name: input.name, description: input.description ?? null,
      keyHash: hashApiKey(key), keyPrefix: displayPrefix(key), scopes, expiresAt,
    }).returning();
    if (!row) throw new Error('API key not saved');
    return { row, key };
  }

  async listOwn(identity: Identity): Promise<ApiKeyRow[]> {
    return this.deps.db.select().from(apiKeys).where(eq(apiKeys.userId, identity.userId ?? '')).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
  }

  /**
   * The owner may revoke a key; so may an administrator (admin:users:read) of the same tenant
   * (or the system tenant) who outranks the owner. Anyone else gets "not found".
   */
  async revoke(identity: Identity, id: string): Promise<ApiKeyRow> {
    if (!isUuid(id)) throw notFound('API key');
    const [found] = await this.deps.db
      .select({ key: apiKeys, ownerRank: roles.hierarchyOrder })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(eq(apiKeys.id, id));
    if (!found) throw notFound('API key');
    const own = found.key.userId === identity.userId;
    const admin = identity.scopes.includes('admin:users:read')
      && (isSystemCaller(identity) || found.key.tenantId === identity.tenantId)
      && identity.hierarchyOrder > found.ownerRank;
    if (!own && !admin) throw notFound('API key');
    if (found.key.revokedAt) return found.key;
    const [row] = await this.deps.db.update(apiKeys).set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).returning();
    await bumpAuthnEpoch(this.deps.redis);
    return row ?? found.key;
  }
}
