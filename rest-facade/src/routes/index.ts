import type { Route } from '../route';
import { billingRoutes } from './billing';
import { sessionRoutes } from './sessions';
import { speakerModelRoutes } from './speaker-models';
import { accountRoutes, authRoutes } from './identity';
import { tenantRoutes } from './tenants';

/** Every /api/v1 path the facade serves. */
export const ROUTES: Route[] = [...authRoutes, ...tenantRoutes, ...accountRoutes, ...billingRoutes, ...speakerModelRoutes, ...sessionRoutes];
