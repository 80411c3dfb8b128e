import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';
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

export function unverifiedIssuer(token: string): string | null {
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : null;
  } catch {
    return null;
  }
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
  const { payload } = await jwtVerify(token, jwks(provider.jwkSetUri), {
    algorithms: ALLOWED_ALGS,
    issuer: issuers,
    clockTolerance: 5,
    requiredClaims: ['exp', 'sub'],
  });
  const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (!aud.includes(provider.clientId) && payload.azp !== provider.clientId) {
    throw new Error('token was not issued for this tenant\'s client');
  }
  return payload;
}
