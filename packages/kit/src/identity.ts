import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

/**
 * Who is calling, as established once at the edge. Subgraphs never see raw credentials:
 * they receive this object inside a short-lived HS256 token signed with the internal secret.
 */
export const identitySchema = z.object({
  kind: z.enum(['user', 'anonymous']),
  tenantId: z.string().nullable(),
  tenantName: z.string(),
  userId: z.string().nullable(),
  username: z.string().nullable(),
  roleId: z.string().nullable(),
  hierarchyOrder: z.number().int(),
  scopes: z.array(z.string()),
  credential: z.enum(['jwt', 'api-key', 'none']),
  apiKeyId: z.string().nullable(),
  clientAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  /** the caller's effective rate limits, resolved at the edge (absent for anonymous callers) */
  rateLimits: z.record(z.string(), z.union([z.number(), z.record(z.string(), z.number())])).nullable().optional(),
});

export type Identity = z.infer<typeof identitySchema>;

export const IDENTITY_HEADER = 'x-voxgate-identity';
const ISSUER = 'voxgate-edge';
const AUDIENCE = 'voxgate-subgraphs';
const TOKEN_TTL_SECONDS = 60;

export function anonymousIdentity(tenantName: string, clientAddress: string | null, userAgent: string | null): Identity {
  return {
    kind: 'anonymous', tenantId: null, tenantName, userId: null, username: null, roleId: null,
    hierarchyOrder: 0, scopes: [], credential: 'none', apiKeyId: null, clientAddress, userAgent,
  };
}

export class IdentitySigner {
  private readonly key: Uint8Array;
  // Signing is the per-request cost on the hot path; an identity's token is reused while it has
  // more than half of its lifetime left.
  private readonly cache = new Map<string, { token: string; renewAt: number }>();

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  async sign(identity: Identity): Promise<string> {
    const cacheKey = JSON.stringify(identity);
    const now = Date.now();
    const hit = this.cache.get(cacheKey);
    if (hit && hit.renewAt > now) return hit.token;
    const token = await new SignJWT({ idn: identity })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${TOKEN_TTL_SECONDS}s`)
      .sign(this.key);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(cacheKey, { token, renewAt: now + (TOKEN_TTL_SECONDS * 1000) / 2 });
    return token;
  }
}

export class IdentityVerifier {
  private readonly key: Uint8Array;
  private readonly cache = new Map<string, { identity: Identity; exp: number }>();

  constructor(secret: string) {
    this.key = new TextEncoder().encode(secret);
  }

  /** Returns the identity, or null when the token is missing, forged, expired or malformed. */
  async verify(token: string | undefined | null): Promise<Identity | null> {
    if (!token) return null;
    const now = Date.now();
    const hit = this.cache.get(token);
    if (hit && hit.exp > now) return hit.identity;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
      });
      const identity = identitySchema.parse(payload.idn);
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(token, { identity, exp: (payload.exp ?? 0) * 1000 });
      return identity;
    } catch {
      return null;
    }
  }
}
