import { verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { UserDirectory } from './accounts.js';
import { sendJson } from './html.js';

const CLOCK_TOLERANCE_SECONDS = 15;

const header = z.object({ alg: z.literal('RS256'), kid: z.string(), typ: z.literal('at+jwt') });
const payload = z.object({
  iss: z.string(),
  sub: z.string(),
  client_id: z.string(),
  exp: z.number(),
  scope: z.string().optional(),
});

export interface UserinfoOptions {
  issuer: string;
  verificationKeys: ReadonlyMap<string, KeyObject>;
  users: UserDirectory;
  /** scope -> claims released for it (same table oidc-provider is configured with). */
  claimsByScope: Readonly<Record<string, readonly string[]>>;
  /** Origins a browser-based client may call userinfo from, by client_id. */
  corsOriginsByClient: ReadonlyMap<string, ReadonlySet<string>>;
}

function decodeSegment(segment: string): unknown {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

class UserinfoError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
  ) {
    super(description);
  }
}

/**
 * Every access token this provider issues is a JWT bound to a resource
 * (`aud` = client_id), and oidc-provider's own userinfo endpoint refuses any
 * token with an audience. This handler serves userinfo for exactly those JWTs:
 * it verifies them with the provider's own signing keys and releases the
 * claims allowed by the token's scope. Requests without such a bearer JWT fall
 * through to oidc-provider (which then answers with its standard errors).
 */
export function createUserinfoHandler(options: UserinfoOptions) {
  const { issuer, verificationKeys, users, claimsByScope, corsOriginsByClient } = options;

  function authenticate(token: string) {
    const [h, p, s] = token.split('.');
    if (h === undefined || p === undefined || s === undefined) throw new UserinfoError(401, 'invalid_token', 'malformed token');
    let parsedHeader: z.infer<typeof header>;
    let claims: z.infer<typeof payload>;
    try {
      parsedHeader = header.parse(decodeSegment(h));
      claims = payload.parse(decodeSegment(p));
    } catch {
      throw new UserinfoError(401, 'invalid_token', 'malformed token');
    }
    const key = verificationKeys.get(parsedHeader.kid);
    if (!key || !verify('sha256', Buffer.from(`${h}.${p}`), key, Buffer.from(s, 'base64url'))) {
      throw new UserinfoError(401, 'invalid_token', 'signature verification failed');
    }
    if (claims.iss !== issuer) throw new UserinfoError(401, 'invalid_token', 'unexpected issuer');
    if (claims.exp + CLOCK_TOLERANCE_SECONDS <= Math.floor(Date.now() / 1000)) {
      throw new UserinfoError(401, 'invalid_token', 'token expired');
    }
    const scopes = new Set((claims.scope ?? '').split(' '));
    if (!scopes.has('openid')) throw new UserinfoError(403, 'insufficient_scope', "access token missing 'openid' scope");
    const user = users.findBySub(claims.sub);
    // client_credentials tokens carry sub = client_id and have no end-user behind them.
    if (!user) throw new UserinfoError(401, 'invalid_token', 'token has no end-user subject');
    return { user, scopes, clientId: claims.client_id };
  }

  return function handleUserinfo(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'POST') return false;
    const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/i.exec(req.headers.authorization ?? '');
    if (!match?.[1]) return false;

    try {
      const { user, scopes, clientId } = authenticate(match[1]);
      const origin = req.headers.origin;
      const cors: Record<string, string> =
        origin && corsOriginsByClient.get(clientId)?.has(origin)
          ? { 'Access-Control-Allow-Origin': origin, Vary: 'Origin' }
          : {};
      const available = UserDirectory.claimsOf(user);
      const released: Record<string, unknown> = { sub: user.sub };
      for (const scope of scopes) {
        for (const claim of claimsByScope[scope] ?? []) {
          if (available[claim] !== undefined) released[claim] = available[claim];
        }
      }
      sendJson(res, 200, released, cors);
    } catch (error) {
      if (!(error instanceof UserinfoError)) throw error;
      const quoted = error.message.replace(/["\\]/g, '');
      sendJson(
        res,
        error.status,
        { error: error.code, error_description: error.message },
        { 'WWW-Authenticate': `Bearer realm="${issuer}", error="${error.code}", error_description="${quoted}"` },
      );
    }
    return true;
  };
}
