import { SCOPES } from '@voxgate/kit';
import { API_KEY_FIELDS, ROLE_FIELDS, TOKEN_FIELDS, type Route } from '../route';

export const authRoutes: Route[] = [
  {
    method: 'post', path: '/auth/login', operationId: 'login', tag: 'Authentication', scope: null, public: true, deprecated: true,
    summary: 'Password login at the identity provider (deprecated: use the authorization code flow with PKCE or API keys)',
    document: `mutation ($input: LoginInput!) { login(input: $input) { ${TOKEN_FIELDS} } }`,
    body: 'input', result: 'login', status: 200, errors: [400, 401, 409, 503],
    headers: { Deprecation: 'true', Link: '</api/v1/auth/exchange-auth-code>; rel="successor-version"' },
  },
  {
    method: 'post', path: '/auth/exchange-auth-code', operationId: 'exchangeAuthCode', tag: 'Authentication', scope: null, public: true,
    summary: 'Exchange an authorization code (PKCE) for tokens',
    document: `mutation ($input: ExchangeAuthCodeInput!) { exchangeAuthCode(input: $input) { ${TOKEN_FIELDS} } }`,
    body: 'input', result: 'exchangeAuthCode', status: 200, errors: [400, 401, 409, 503],
  },
  {
    method: 'post', path: '/auth/refresh-token', operationId: 'refreshToken', tag: 'Authentication', scope: null, public: true,
    summary: 'Refresh tokens; the refresh token may rotate, keep the latest',
    document: `mutation ($input: RefreshTokenInput!) { refreshToken(input: $input) { ${TOKEN_FIELDS} } }`,
    body: 'input', result: 'refreshToken', status: 200, errors: [400, 503],
  },
  {
    method: 'post', path: '/auth/logout', operationId: 'logout', tag: 'Authentication', scope: null, public: true,
    summary: 'Invalidate a refresh token at the identity provider',
    document: 'mutation ($input: LogoutInput!) { logout(input: $input) }',
    body: 'input', status: 200, errors: [400, 503],
  },
];

export const accountRoutes: Route[] = [
  {
    method: 'post', path: '/api-keys', operationId: 'createApiKey', tag: 'API keys', scope: SCOPES.apiKeysWrite,
    summary: 'Create an API key; the plain key is in this response only',
    document: `mutation ($input: ApiKeyCreateInput!) { createApiKey(input: $input) { ${API_KEY_FIELDS} key } }`,
    body: 'input', result: 'createApiKey', status: 201, errors: [400, 401, 403],
  },
  {
    method: 'get', path: '/api-keys', operationId: 'listApiKeys', tag: 'API keys', scope: SCOPES.apiKeysRead,
    summary: "The caller's API keys (never the secret or its hash)",
    document: `query { apiKeys { ${API_KEY_FIELDS} } }`,
    result: 'apiKeys', status: 200, errors: [401, 403],
  },
  {
    method: 'delete', path: '/api-keys/:id', operationId: 'revokeApiKey', tag: 'API keys', scope: SCOPES.apiKeysWrite,
    summary: 'Revoke an API key (permanent)',
    document: 'mutation ($id: ID!) { revokeApiKey(id: $id) { id } }',
    params: { id: 'id' }, status: 204, errors: [401, 403, 404],
  },
  {
    method: 'get', path: '/roles', operationId: 'listRoles', tag: 'Users and roles', scope: SCOPES.rolesRead,
    summary: 'Roles the caller may assign (ranked below the caller)',
    document: `query { roles { ${ROLE_FIELDS} } }`,
    result: 'roles', status: 200, errors: [401, 403],
  },
  {
    method: 'get', path: '/users/me', operationId: 'getMe', tag: 'Users and roles', scope: null,
    summary: 'The caller',
    document: `query { me { id username email displayName tenantId createdAt lastLoginAt role { ${ROLE_FIELDS} } tenant { id name displayName } } }`,
    result: 'me', status: 200, errors: [401],
  },
];
