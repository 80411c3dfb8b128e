import express, { type Request, type Response, type Router } from 'express';
import type { Identity } from '@voxgate/kit';
import { problem, problemFromGraphQL, sendProblem, type GraphQLErrorLike } from './problem';
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
    vars[route.body] = body;
  }
  return vars;
}

export function buildFacadeRouter(routes: Route[], execute: OperationExecutor): Router {
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
      const value = route.result ? result.data?.[route.result] : result.data;
      const first = result.errors?.[0];
      if (first && (value === null || value === undefined)) {
        return sendProblem(res, problemFromGraphQL(first, req.originalUrl));
      }
      for (const [name, v] of Object.entries(route.headers ?? {})) res.setHeader(name, v);
      if (route.status === 204 || !route.result) return res.status(route.status).end();
      res.status(route.status).json(value);
    });
  }
  return router;
}
