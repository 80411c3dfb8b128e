import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { OidcProviderRow } from '../db/schema';

// Asymmetric algorithms only: accepting HS* here would let anyone holding the (public) JWKS forge tokens.
const ALLOWED_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const jwksByUri = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function jwks(uri: string) {
  let set = jwksByUri.get(uri);
  if (!set) {
    // jose caches keys and refetches on an unknown kid, at most every 30 s
    set = createRemoteJWKSet(new URL(uri), { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000, timeoutDuration: 5_000 });
    jwksByUri.set(uri, set);
  }
  return set;
}

export interface UnverifiedClaims {
  iss: string;
  /** the audiences and authorized party the token names, to select the tenant before verifying */
  audiences: string[];
}

export function unverifiedClaims(token: string): UnverifiedClaims | null {
  try {
    const p = decodeJwt(token);
    if (typeof p.iss !== 'string') return null;
    const aud = p.aud === undefined ? [] : Array.isArray(p.aud) ? p.aud : [p.aud];
    return { iss: p.iss, audiences: typeof p.azp === 'string' ? [...aud, p.azp] : aud };
  } catch {
    return null;
  }
}

/** The provider could not be asked (JWKS unreachable or broken), as opposed to a bad token. */
export function isProviderUnavailable(e: unknown): boolean {
  return e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JWKSInvalid || e instanceof TypeError;
}

/**
 * Verifies an access token issued by a tenant's provider: signature against the provider's JWKS,
 * issuer, expiry, and that it was issued for the tenant's client (aud or azp).
 */
export async function verifyProviderToken(
  provider: Pick<OidcProviderRow, 'issuerUri' | 'advertisedIssuer' | 'jwkSetUri' | 'clientId'>,
  token: string,
): Promise<JWTPayload> {
  const issuers = [provider.issuerUri, provider.advertisedIssuer].filter((v): v is string => !!v);
  const { payload, protectedHeader } = await jwtVerify(token, jwks(provider.jwkSetUri), {
    algorithms: ALLOWED_ALGS,
    issuer: issuers,
    clockTolerance: 5,
    requiredClaims: ['exp', 'sub'],
  });
  // An ID token is signed by the same keys for the same client, but is not a credential for an API:
  // accept RFC 9068 typed access tokens, or untyped ones that carry scopes and are not typed "ID".
  const typ = protectedHeader.typ?.toLowerCase();
  const typedAccess = typ === 'at+jwt' || typ === 'application/at+jwt';
  const scoped = typeof payload.scope === 'string' || typeof payload.scp === 'string' || Array.isArray(payload.scp);
  if (!typedAccess && (!scoped || payload.typ === 'ID')) throw new Error('not an access token');
  const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!aud.includes(provider.clientId) && payload.azp !== provider.clientId) {
    throw new Error('token was not issued for this tenant\'s client');
  }
  return payload;
}
