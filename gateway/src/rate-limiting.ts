import type { NextFunction, Request, Response } from 'express';
import { rateLimitHeaders, rateLimitedError, type FixedWindowRateLimiter, type Identity } from '@voxgate/kit';
import type { EffectiveLimitsReader } from '@voxgate/billing';
import { problemFromGraphQL, sendProblem } from '@voxgate/rest-facade';

/**
 * Runs after authentication: resolves the caller's effective limits once (cached per limits epoch),
 * forwards them to the subgraphs inside the signed identity, and counts the request against
 * `globalRequests`. Anonymous calls (the public auth endpoints) are not counted here.
 */
export function rateLimitMiddleware(reader: EffectiveLimitsReader, limiter: FixedWindowRateLimiter) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const identity = res.locals.identity as Identity;
    if (identity.kind !== 'user' || !identity.tenantId || !identity.userId) return next();
    try {
      const limits = await reader.rateLimits(identity.tenantId, identity.userId, res.locals.edgeEpoch as string | undefined);
      res.locals.identity = { ...identity, rateLimits: limits } satisfies Identity;
      const decision = await limiter.hit(`global:${identity.userId}`, limits.globalRequests ?? 0);
      for (const [name, value] of Object.entries(rateLimitHeaders('globalRequests', decision))) res.setHeader(name, value);
      if (decision.allowed) return next();
      const error = rateLimitedError('globalRequests', decision);
      if (req.baseUrl.startsWith('/graphql')) {
        res.status(429).json({ errors: [{ message: error.message, extensions: error.extensions }] });
        return;
      }
      sendProblem(res, problemFromGraphQL({ message: error.message, extensions: error.extensions }, req.originalUrl));
    } catch (e) {
      next(e);
    }
  };
}
