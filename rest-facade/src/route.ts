import type { Scope } from '@voxgate/kit';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface QueryParam {
  variable: string;
  type: 'integer' | 'boolean' | 'string';
  description?: string;
  default?: number | boolean | string;
}

/**
 * One documented REST path, translated onto one GraphQL operation. The table is the program:
 * the router and the OpenAPI document are both generated from it.
 */
export interface Route {
  method: HttpMethod;
  /** Express-style path below /api/v1, e.g. `/admin/tenants/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** The scope the subgraph enforces (documentation); null when only authentication is needed. */
  scope: Scope | null;
  /** Public endpoints need no credential (the auth group). */
  public?: boolean;
  deprecated?: boolean;
  document: string;
  /** path parameter → GraphQL variable */
  params?: Record<string, string>;
  query?: Record<string, QueryParam>;
  /** GraphQL variable that receives the JSON request body */
  body?: string;
  /** field of `data` (dotted path for nested ones) that becomes the response body; absent for bodiless responses */
  result?: string;
  status: 200 | 201 | 204;
  /** dotted path to a boolean in `data`: 201 instead of the success status when it is true (PUT that created) */
  createdWhen?: string;
  /** answered when the result field is null without errors (e.g. 204 "no active subscription") */
  emptyStatus?: 204;
  /** the limit documents: hyphenated group names on the wire (see rename.ts) */
  renameGroups?: boolean;
  /** error statuses this route can answer, for the OpenAPI document */
  errors: number[];
  /** extra response headers on success */
  headers?: Record<string, string>;
  /** response headers derived from the result (e.g. Deprecation and Sunset of a model alias) */
  headersFrom?: (value: Record<string, unknown>) => Record<string, string>;
  /**
   * A binary download: the operation authorizes it and describes the content (its result), then
   * the edge's responder of that name streams the bytes from the blob store.
   */
  binary?: { responder: string; contentType: string; description: string };
}

export const ROLE_FIELDS = 'id slug name hierarchyOrder';
export const OIDC_FIELDS =
  'id providerKey clientId clientSecretConfigured issuerUri authorizationUri tokenUri userInfoUri jwkSetUri endSessionUri introspectionUri advertisedIssuer';
export const TENANT_FIELDS = `id name displayName description enabled firstLoginRole { ${ROLE_FIELDS} } defaultRole { ${ROLE_FIELDS} } createdAt oidcProvider { ${OIDC_FIELDS} } speechServiceFileInternalPublishEnabled speechServiceFileDirectShareEnabled speechServiceSessionMaxConcurrent speechServiceSessionRecordingEnabled`;
export const API_KEY_FIELDS = 'id name description prefix scopes state expiresAt revokedAt lastUsedAt createdAt';
export const TOKEN_FIELDS = 'access_token refresh_token token_type expires_in id_token scope';
