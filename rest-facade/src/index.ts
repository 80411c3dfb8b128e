export { buildFacadeRouter, identityOf, type BinaryResponder, type OperationExecutor, type OperationResult } from './router';
export { buildOpenApi } from './openapi';
export { problem, problemFromGraphQL, sendProblem, type Problem } from './problem';
export { ROUTES } from './routes';
export type { Route } from './route';
