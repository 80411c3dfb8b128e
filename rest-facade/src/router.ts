import express, { type Request, type Response, type Router } from 'express';
import { rateLimitHeaders, type Identity } from '@voxgate/kit';
import { problem, problemFromGraphQL, sendProblem, type GraphQLErrorLike } from './problem';
import { graphStyleKey, groupsToGraph, groupsToRest } from './rename';
import type { Route } from './route';

export interface OperationResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLErrorLike[];
}

/** Runs a GraphQL operation through the gateway as the given caller. */
export type OperationExecutor = (
  operation: { query: string; variables: Record<string, unknown> },
  identity: Identity,
) => Promise<OperationResult>;

/** How the edge tells the facade who is calling (set by the authentication middleware). */
export function identityOf(res: Response): Identity {
  return res.locals.identity as Identity;
}

class InputError extends Error {}

/** A RATE_LIMITED error from a subgraph becomes the same headers the edge sends for globalRequests. */
function setLimitHeaders(res: Response, ext: Record<string, unknown>): void {
  const retry = Number(ext.retryAfterSeconds);
  if (!Number.isFinite(retry)) return;
  const limit = Number(ext.limit ?? 0);
  const windowSeconds = Number(ext.windowSeconds ?? 60);
  const headers = rateLimitHeaders(String(ext.policy ?? 'operation'), {
    allowed: false, limit, remaining: 0, resetSeconds: retry, retryAfterSeconds: retry, windowSeconds,
  });
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}

function coerceQuery(route: Route, req: Request): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(route.query ?? {})) {
    const raw = req.query[name];
    if (raw === undefined) {
      if (spec.default !== undefined) vars[spec.variable] = spec.default;
      continue;
    }
    if (typeof raw !== 'string') throw new InputError(`query parameter ${name} must be given once`);
    if (spec.type === 'integer') {
      if (!/^-?\d+$/.test(raw)) throw new InputError(`query parameter ${name} must be an integer`);
      vars[spec.variable] = Number(raw);
    } else if (spec.type === 'boolean') {
      if (raw !== 'true' && raw !== 'false') throw new InputError(`query parameter ${name} must be true or false`);
      vars[spec.variable] = raw === 'true';
    } else {
      vars[spec.variable] = raw;
    }
  }
  return vars;
}

function variablesFor(route: Route, req: Request): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const [param, variable] of Object.entries(route.params ?? {})) vars[variable] = req.params[param];
  Object.assign(vars, coerceQuery(route, req));
  if (route.body) {
    const body: unknown = req.body;
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new InputError('request body must be a JSON object');
    }
    if (route.renameGroups) {
      const wrong = graphStyleKey(body);
      if (wrong) throw new InputError(`unknown field "${wrong}": use "${Object.keys(groupsToRest({ [wrong]: 0 }) as object)[0]}"`);
    }
    vars[route.body] = route.renameGroups ? groupsToGraph(body) : body;
  }
  return vars;
}

/** Streams a binary response after its route's operation authorized it (see Route.binary). */
export type BinaryResponder = (value: Record<string, unknown>, identity: Identity, req: Request, res: Response) => Promise<void>;

export function buildFacadeRouter(routes: Route[], execute: OperationExecutor, binaries: Record<string, BinaryResponder> = {}): Router {
  const router = express.Router();
  for (const route of routes) {
    router[route.method](route.path, async (req: Request, res: Response) => {
      let variables: Record<string, unknown>;
      try {
        variables = variablesFor(route, req);
      } catch (e) {
        if (e instanceof InputError) return sendProblem(res, problem(400, 'BAD_USER_INPUT', e.message, { instance: req.originalUrl }));
        throw e;
      }
      const result = await execute({ query: route.document, variables }, identityOf(res));
      const at = (path: string) => path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), result.data);
      const value = route.result ? at(route.result) : result.data;
      const first = result.errors?.[0];
      if (first && (value === null || value === undefined)) {
        const p = problemFromGraphQL(first, req.originalUrl);
        if (p.code === 'RATE_LIMITED') setLimitHeaders(res, first.extensions ?? {});
        else if (p.code === 'QUOTA_EXCEEDED' && Number.isFinite(Number(first.extensions?.retryAfterSeconds))) {
          // a spent quota has no per-minute policy to describe: only when it refills
          res.setHeader('Retry-After', String(first.extensions?.retryAfterSeconds));
        }
        return sendProblem(res, p);
      }
      for (const [name, v] of Object.entries(route.headers ?? {})) res.setHeader(name, v);
      if (route.headersFrom && value && typeof value === 'object') {
        for (const [name, v] of Object.entries(route.headersFrom(value as Record<string, unknown>))) res.setHeader(name, v);
      }
      if (route.binary) {
        const responder = binaries[route.binary.responder];
        if (!responder) throw new Error(`no binary responder ${route.binary.responder}`);
        return responder(value as Record<string, unknown>, identityOf(res), req, res);
      }
      if (route.status === 204 || !route.result) return res.status(route.status).end();
      if ((value === null || value === undefined) && route.emptyStatus) return res.status(route.emptyStatus).end();
      const status = route.createdWhen && at(route.createdWhen) === true ? 201 : route.status;
      res.status(status).json(route.renameGroups ? groupsToRest(value) : value);
    });
  }
  return router;
}
