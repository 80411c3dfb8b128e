import { eq } from 'drizzle-orm';
import { conflict, isUniqueViolation, notFound, type Identity } from '@voxgate/kit';
import { bumpAuthnEpoch } from '../authn-epoch';
import { isSystemCaller, type TenancyDeps } from '../context';
import { oidcProviders, type OidcProviderRow } from '../db/schema';
import { TenantsService } from '../tenants/tenants.service';
import { parseInput } from '../validation';
import { assertPublicEndpoints } from './outbound-policy';
import type { OidcTestResult } from './oidc-provider.type';
import { oidcProviderInputSchema } from './provider-input';
import { IdpError, tokenRequest } from './token-client';

export class OidcService {
  constructor(private readonly deps: TenancyDeps) {}

  async get(identity: Identity, tenantId: string): Promise<OidcProviderRow> {
    await new TenantsService(this.deps).visible(identity, tenantId);
    const [row] = await this.deps.db.select().from(oidcProviders).where(eq(oidcProviders.tenantId, tenantId));
    if (!row) throw notFound('OIDC provider');
    return row;
  }

  /** Creates or replaces the configuration. An omitted clientSecret keeps the stored one (it is
   * never returned, so a read-modify-write client could not send it back); null or "" clears it. */
  async put(identity: Identity, tenantId: string, raw: unknown): Promise<OidcProviderRow> {
    await new TenantsService(this.deps).visible(identity, tenantId);
    const input = parseInput(oidcProviderInputSchema, raw);
    if (!isSystemCaller(identity)) await assertPublicEndpoints(input);
    const secretOmitted = typeof raw === 'object' && raw !== null && (raw as { clientSecret?: unknown }).clientSecret === undefined;
    const { clientSecret, ...rest } = input;
    const set = secretOmitted ? { ...rest, updatedAt: new Date() } : { ...input, updatedAt: new Date() };
    let row: OidcProviderRow | undefined;
    try {
      [row] = await this.deps.db
        .insert(oidcProviders)
        .values({ tenantId, ...rest, clientSecret })
        .onConflictDoUpdate({ target: oidcProviders.tenantId, set })
        .returning();
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict('Another tenant already uses this issuer and client id');
      throw e;
    }
    if (!row) throw new Error('provider not saved');
    await bumpAuthnEpoch(this.deps.redis);
    return row;
  }

  async remove(identity: Identity, tenantId: string): Promise<void> {
    await new TenantsService(this.deps).visible(identity, tenantId);
    const deleted = await this.deps.db.delete(oidcProviders).where(eq(oidcProviders.tenantId, tenantId)).returning({ id: oidcProviders.id });
    if (deleted.length === 0) throw notFound('OIDC provider');
    // tokens from the removed provider must stop authenticating at once
    await bumpAuthnEpoch(this.deps.redis);
  }

  /** Connectivity check: a client_credentials grant at the tenant's token endpoint. */
  async test(identity: Identity, tenantId: string): Promise<OidcTestResult> {
    const provider = await this.get(identity, tenantId);
    try {
      const res = await tokenRequest(provider, { grant_type: 'client_credentials' });
      return { success: true, message: `token endpoint issued a ${res.token_type ?? 'Bearer'} token`, error: null };
    } catch (e) {
      if (e instanceof IdpError) {
        return {
          success: false,
          message: e.kind === 'unreachable' ? 'token endpoint unreachable' : 'token endpoint refused the client credentials',
          // only the OAuth error code: the provider's free text is not echoed back
          error: e.oauthError ?? (e.kind === 'unreachable' ? 'unreachable' : 'rejected'),
        };
      }
      throw e;
    }
  }
}
