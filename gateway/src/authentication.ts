import type { NextFunction, Request, Response } from 'express';
import { anonymousIdentity, readEdgeEpoch, type Identity, type Redis } from '@voxgate/kit';
import { AuthenticationError, type Authenticator } from '@voxgate/tenancy';
import { problem, sendProblem } from '@voxgate/rest-facade';

const TENANT_HEADER_RE = /^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Establishes res.locals.identity for every /api/v1 and /graphql request. Without a credential the
 * caller is anonymous, in the tenant named by X-Tenant (default "system") for the public auth calls.
 */
export function authenticationMiddleware(authenticator: Authenticator, redis: Redis) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const meta = { clientAddress: req.ip ?? req.socket.remoteAddress ?? null, userAgent: header(req, 'user-agent') ?? null };
    // the public auth calls take no credential: a stale token sent along with a refresh is ignored
    const isPublic = req.baseUrl === '/api/v1' && req.path.startsWith('/auth/');
    const apiKey = isPublic ? undefined : header(req, 'x-api-key');
    const authorization = isPublic || apiKey !== undefined ? undefined : header(req, 'authorization');
    let bearer: string | undefined;
    if (authorization !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!m) return unauthorized(req, res, 'Authorization header must be "Bearer <token>"');
      bearer = m[1];
    }
    let identity: Identity | null;
    try {
      // one read of the edge epoch serves every cache this request consults
      const epoch = apiKey !== undefined || bearer !== undefined ? await readEdgeEpoch(redis) : undefined;
      res.locals.edgeEpoch = epoch;
      identity = await authenticator.authenticate({ apiKey, bearer }, meta, epoch);
    } catch (e) {
      if (e instanceof AuthenticationError) return unauthorized(req, res, e.message);
      return next(e);
    }
    if (!identity) {
      const tenant = (header(req, 'x-tenant') ?? 'system').trim().toLowerCase();
      if (!TENANT_HEADER_RE.test(tenant)) {
        return sendProblem(res, problem(400, 'BAD_USER_INPUT', 'X-Tenant must be a tenant name', { instance: req.originalUrl }));
      }
      identity = anonymousIdentity(tenant, meta.clientAddress, meta.userAgent);
    }
    res.locals.identity = identity;
    next();
  };
}

function unauthorized(req: Request, res: Response, detail: string): void {
  res.setHeader('WWW-Authenticate', 'Bearer realm="voxgate", error="invalid_token"');
  if (req.baseUrl.startsWith('/graphql') || req.path.startsWith('/graphql')) {
    res.status(401).json({ errors: [{ message: detail, extensions: { code: 'UNAUTHENTICATED' } }] });
    return;
  }
  sendProblem(res, problem(401, 'UNAUTHENTICATED', detail, { instance: req.originalUrl }));
}
