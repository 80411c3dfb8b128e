import { and, asc, eq, getTableColumns, or, sql } from 'drizzle-orm';
import { readEdgeEpoch, type Database, type Identity, type Logger, type Redis } from '@voxgate/kit';
import { KEY_RE, hashApiKey } from '../api-keys/key-format';
import { apiKeys, oidcProviders, roles, tenants, users, type OidcProviderRow } from '../db/schema';
import { unverifiedClaims, verifyProviderToken } from './provider-tokens';

export class AuthenticationError extends Error {}

const CACHE_LIMIT = 10_000;

/** Unknown keys and issuers are cached too (one query each, not one per request), so the caches are
 * bounded: a flood of random credentials empties them instead of growing them. */
function remember<K, V>(cache: Map<K, V>, key: K, value: V): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}

export interface Credentials {
  apiKey?: string | undefined;
  bearer?: string | undefined;
}

export interface RequestMeta {
  clientAddress: string | null;
  userAgent: string | null;
}

interface Principal {
  tenantId: string;
  tenantName: string;
  tenantEnabled: boolean;
  userId: string;
  username: string;
  roleId: string;
  hierarchyOrder: number;
  roleScopes: string[];
}

interface KeyRecord extends Principal {
  apiKeyId: string;
  keyScopes: string[] | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

type ProviderWithTenant = OidcProviderRow & { tenantName: string; tenantEnabled: boolean };

/**
 * Turns request credentials into an Identity at the edge. It reads the tenancy tables (the
 * tenancy domain's own code, run by the edge for the hot path) and caches lookups until the
 * authn epoch moves.
 */
export class Authenticator {
  private epoch = -1;
  private readonly keys = new Map<string, KeyRecord | null>();
  private readonly providers = new Map<string, ProviderWithTenant[]>();
  private readonly principals = new Map<string, Principal | null>();
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly redis: Redis,
    private readonly log: Logger,
  ) {}

  /** Epochs only grow; a request that read an older one neither rolls the caches back nor uses them. */
  private async syncEpoch(given?: string): Promise<number> {
    const epoch = Number(given ?? (await readEdgeEpoch(this.redis)));
    if (epoch > this.epoch) {
      this.keys.clear();
      this.providers.clear();
      this.principals.clear();
      this.epoch = epoch;
    }
    return epoch;
  }

  /** A lookup read under `epoch` is cached only if no change moved the epoch meanwhile. */
  private cacheable(epoch: number): boolean {
    return epoch === this.epoch;
  }

  /** Returns null when no credential was presented; throws AuthenticationError when one is invalid. */
  /** `epoch`: the edge epoch the caller already read for this request (saves a round trip). */
  async authenticate(creds: Credentials, meta: RequestMeta, epoch?: string): Promise<Identity | null> {
    // Rule 1 of the spec: with both headers, the API key wins and the bearer token is ignored.
    if (creds.apiKey !== undefined) return this.fromApiKey(creds.apiKey, meta, epoch);
    if (creds.bearer !== undefined) return this.fromBearer(creds.bearer, meta, epoch);
    return null;
  }

  private async fromApiKey(key: string, meta: RequestMeta, epoch?: string): Promise<Identity> {
    if (!KEY_RE.test(key)) throw new AuthenticationError('Invalid API key');
    const seen = await this.syncEpoch(epoch);
    const hash = hashApiKey(key);
    let rec = this.cacheable(seen) ? this.keys.get(hash) : undefined;
    if (rec === undefined) {
      rec = await this.loadKey(hash);
      if (this.cacheable(seen)) remember(this.keys, hash, rec);
    }
    if (!rec) throw new AuthenticationError('Invalid API key');
    if (rec.revokedAt) throw new AuthenticationError('API key has been revoked');
    if (rec.expiresAt && rec.expiresAt.getTime() <= Date.now()) throw new AuthenticationError('API key has expired');
    if (!rec.tenantEnabled) throw new AuthenticationError('Tenant is disabled');
    this.touch(rec.apiKeyId);
    const scopes = rec.keyScopes === null ? [] : rec.keyScopes.filter((s) => rec.roleScopes.includes(s));
    return this.identity(rec, scopes, 'api-key', rec.apiKeyId, meta);
  }

  private async loadKey(hash: string): Promise<KeyRecord | null> {
    const [row] = await this.db
      .select({
        apiKeyId: apiKeys.id, keyScopes: apiKeys.scopes, expiresAt: apiKeys.expiresAt, revokedAt: apiKeys.revokedAt,
        tenantId: tenants.id, tenantName: tenants.name, tenantEnabled: tenants.enabled,
        userId: users.id, username: users.username,
        roleId: roles.id, hierarchyOrder: roles.hierarchyOrder, roleScopes: roles.scopes,
      })
      .from(apiKeys)
      .innerJoin(users, eq(users.id, apiKeys.userId))
      .innerJoin(tenants, eq(tenants.id, apiKeys.tenantId))
      .innerJoin(roles, eq(roles.id, users.roleId))
      .where(eq(apiKeys.keyHash, hash));
    return row ?? null;
  }

  /** last_used_at is informative: written at most once a minute per key, off the request path. */
  private touch(apiKeyId: string): void {
    const now = Date.now();
    if ((this.lastUsedWritten.get(apiKeyId) ?? 0) > now - 60_000) return;
    this.lastUsedWritten.set(apiKeyId, now);
    this.db.update(apiKeys).set({ lastUsedAt: new Date(now) }).where(eq(apiKeys.id, apiKeyId))
      .catch((e: unknown) => this.log.warn({ err: e }, 'could not record API key use'));
  }

  private async fromBearer(token: string, meta: RequestMeta, epoch?: string): Promise<Identity> {
    const claims = unverifiedClaims(token);
    if (!claims) throw new AuthenticationError('Malformed bearer token');
    const seen = await this.syncEpoch(epoch);
    let byIssuer = this.cacheable(seen) ? this.providers.get(claims.iss) : undefined;
    if (!byIssuer) {
      byIssuer = await this.db
        .select({ ...getTableColumns(oidcProviders), tenantName: tenants.name, tenantEnabled: tenants.enabled })
        .from(oidcProviders)
        .innerJoin(tenants, eq(tenants.id, oidcProviders.tenantId))
        .where(or(eq(oidcProviders.issuerUri, claims.iss), eq(oidcProviders.advertisedIssuer, claims.iss)))
        .orderBy(asc(oidcProviders.createdAt), asc(oidcProviders.id));
      if (this.cacheable(seen)) remember(this.providers, claims.iss, byIssuer);
    }
    // (issuer, client) names one tenant: only that tenant's keys are ever fetched for this token,
    // so another tenant's configuration cannot slow down or capture it
    const candidates = byIssuer.filter((p) => claims.audiences.includes(p.clientId));
    let lastError: unknown = null;
    for (const provider of candidates) {
      let sub: string;
      try {
        sub = String((await verifyProviderToken(provider, token)).sub);
      } catch (e) {
        lastError = e;
        continue;
      }
      // several tenants may share one issuer and client: the token belongs to the one that knows its subject
      const principal = await this.principal(provider.tenantId, sub, seen);
      if (!principal) {
        lastError = new AuthenticationError('User is not provisioned; sign in through /api/v1/auth first');
        continue;
      }
      if (!provider.tenantEnabled) throw new AuthenticationError('Tenant is disabled');
      return this.identity(principal, principal.roleScopes, 'jwt', null, meta);
    }
    this.log.debug({ err: lastError, iss: claims.iss }, 'bearer token rejected');
    if (lastError instanceof AuthenticationError) throw lastError;
    throw new AuthenticationError('Invalid bearer token');
  }

  private async principal(tenantId: string, subject: string, seen: number): Promise<Principal | null> {
    const cacheKey = `${tenantId}\u0000${subject}`;
    let p = this.cacheable(seen) ? this.principals.get(cacheKey) : undefined;
    if (p === undefined) {
      const [row] = await this.db
        .select({
          tenantId: tenants.id, tenantName: tenants.name, tenantEnabled: tenants.enabled,
          userId: users.id, username: users.username,
          roleId: roles.id, hierarchyOrder: roles.hierarchyOrder, roleScopes: roles.scopes,
        })
        .from(users)
        .innerJoin(tenants, eq(tenants.id, users.tenantId))
        .innerJoin(roles, eq(roles.id, users.roleId))
        .where(and(eq(users.tenantId, tenantId), eq(users.subject, subject), sql`not ${users.isService}`));
      p = row ?? null;
      if (this.cacheable(seen)) remember(this.principals, cacheKey, p);
    }
    return p;
  }

  private identity(p: Principal, scopes: string[], credential: 'jwt' | 'api-key', apiKeyId: string | null, meta: RequestMeta): Identity {
    return {
      kind: 'user', tenantId: p.tenantId, tenantName: p.tenantName, userId: p.userId, username: p.username,
      roleId: p.roleId, hierarchyOrder: p.hierarchyOrder, scopes, credential, apiKeyId,
      clientAddress: meta.clientAddress, userAgent: meta.userAgent,
    };
  }
}
