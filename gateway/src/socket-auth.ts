import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import { readEdgeEpoch, unauthenticated, type Identity, type Redis } from '@voxgate/kit';
import type { EffectiveLimitsReader } from '@voxgate/billing';
import { AuthenticationError, type Authenticator } from '@voxgate/tenancy';

export interface SocketCredentials {
  apiKey?: string | undefined;
  /** a bearer access token (without the "Bearer " prefix) */
  accessToken?: string | undefined;
}

/** Who a WebSocket caller is, resolved exactly like a REST call (same caches, same edge epoch), with their effective limits. */
export type SocketAuthenticator = (credentials: SocketCredentials, meta: { clientAddress: string | null; userAgent: string | null }) => Promise<Identity>;

export function socketAuthenticator(authenticator: Authenticator, redis: Redis, limitsReader: EffectiveLimitsReader): SocketAuthenticator {
  return async (credentials, meta) => {
    if (!credentials.apiKey && !credentials.accessToken) throw unauthenticated('Credentials required: an API key or a bearer access token');
    const epoch = await readEdgeEpoch(redis);
    let identity: Identity | null;
    try {
      identity = await authenticator.authenticate({ apiKey: credentials.apiKey, bearer: credentials.accessToken }, meta, epoch);
    } catch (e) {
      if (e instanceof AuthenticationError) throw unauthenticated(e.message);
      throw e;
    }
    if (!identity || identity.kind !== 'user' || !identity.tenantId || !identity.userId) throw unauthenticated('Credentials required');
    const rateLimits = await limitsReader.rateLimits(identity.tenantId, identity.userId, epoch);
    return { ...identity, rateLimits };
  };
}

/** Credentials sent as headers on the upgrade request (non-browser clients). */
export function upgradeCredentials(req: IncomingMessage): SocketCredentials | { invalid: string } | null {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const apiKey = one(req.headers['x-api-key']);
  if (apiKey !== undefined) return { apiKey };
  const authorization = one(req.headers.authorization);
  if (authorization === undefined) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!m) return { invalid: 'Authorization header must be "Bearer <token>"' };
  return { accessToken: m[1] };
}

/** The edge trusts X-Forwarded-For from loopback proxies only, like Express's `trust proxy: loopback`. */
const trustLoopback = proxyaddr.compile('loopback');

/** The client address of an upgrade request, computed exactly as Express computes `req.ip`. */
export function clientAddressOf(req: IncomingMessage): string | null {
  return req.socket.remoteAddress ? proxyaddr(req, trustLoopback) : null;
}
