// oidc-provider ships no type declarations and @types/oidc-provider is not a
// dependency of this workspace, so the subset this package relies on is
// declared here (checked against oidc-provider 9.13 sources). Keep it narrow:
// anything not listed is deliberately unavailable to this package.
declare module 'oidc-provider' {
  import type { EventEmitter } from 'node:events';
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type JsonObject = { [key: string]: unknown };

  /** What oidc-provider hands an adapter: a plain JSON-serialisable model payload. */
  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    userCode?: string;
    uid?: string;
    consumed?: unknown;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number | undefined): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export type AdapterFactory = (modelName: string) => Adapter;

  export type ClaimsRequest = Record<string, { essential?: boolean; value?: string; values?: string[] } | null>;

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: ClaimsRequest, rejected: string[]): Promise<JsonObject> | JsonObject;
  }

  export interface Client {
    readonly clientId: string;
    readonly clientAuthMethod: string;
    readonly redirectUris: string[];
    grantTypeAllowed(type: string): boolean;
  }

  export interface ClientModel {
    find(id: string): Promise<Client | undefined>;
  }

  export interface Grant {
    jti: string;
    accountId: string;
    clientId: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    getOIDCScopeFiltered(filter: Set<string>): string;
    getResourceScopeFiltered(resource: string, filter: Set<string>): string;
    save(): Promise<string>;
  }

  export interface GrantModel {
    new (init: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg?: string; kid?: string } };
  }

  export interface ResourceServer extends ResourceServerInfo {
    identifier(): string;
    readonly scopes: Set<string>;
  }

  export interface ResourceServerModel {
    new (identifier: string, info: ResourceServerInfo): ResourceServer;
  }

  /** Shared shape of AccessToken and ClientCredentials as seen by extraTokenClaims. */
  export interface IssuedToken {
    kind: string;
    jti?: string;
    accountId?: string;
    clientId: string;
    scope?: string;
    gty?: string;
  }

  export interface AccessToken extends IssuedToken {
    resourceServer: ResourceServer | undefined;
    readonly expiration: number;
    readonly tokenType: string;
    save(): Promise<string>;
  }

  export interface AccessTokenModel {
    new (init: {
      accountId: string;
      client: Client;
      grantId: string;
      gty: string;
      expiresWithSession?: boolean;
      scope?: string;
    }): AccessToken;
  }

  export interface RefreshToken extends IssuedToken {
    save(): Promise<string>;
  }

  export interface RefreshTokenModel {
    new (init: {
      accountId: string;
      client: Client;
      grantId: string;
      gty: string;
      scope: string;
      resource?: string;
      rotations?: number;
      expiresWithSession?: boolean;
      authTime?: number;
      amr?: string[];
    }): RefreshToken;
  }

  export interface IdToken {
    scope: string;
    set(claim: string, value: unknown): void;
    issue(options: { use: 'idtoken' }): Promise<string>;
  }

  export interface IdTokenModel {
    new (claims: JsonObject, options: { ctx: KoaContextWithOIDC }): IdToken;
  }

  export interface OIDCContext {
    readonly params: Record<string, unknown>;
    readonly client: Client;
    readonly route: string;
    readonly account: Account | undefined;
    entity(name: string, value: unknown): void;
  }

  export interface KoaContextWithOIDC {
    oidc: OIDCContext;
    body: unknown;
    status: number;
    readonly host: string;
    type: string;
  }

  export interface PromptDetails {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
    [key: string]: unknown;
  }

  export interface Interaction {
    uid: string;
    prompt: { name: string; reasons: string[]; details: PromptDetails };
    params: Record<string, unknown>;
    session?: { accountId: string; uid?: string };
    grantId?: string;
    returnTo: string;
  }

  export interface InteractionResults {
    login?: { accountId: string; amr?: string[]; acr?: string; remember?: boolean };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
  }

  export type FindAccount = (ctx: KoaContextWithOIDC, sub: string, token?: unknown) => Promise<Account | undefined>;

  export type TtlFunction = (ctx: KoaContextWithOIDC | undefined, token: unknown, client?: Client) => number;

  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    token_endpoint_auth_method: string;
    redirect_uris: string[];
    post_logout_redirect_uris: string[];
    grant_types: string[];
    response_types: string[];
    application_type: 'web' | 'native';
  }

  export interface Jwk {
    kty: string;
    kid?: string;
    use?: string;
    alg?: string;
    [member: string]: unknown;
  }

  export interface Configuration {
    adapter?: AdapterFactory;
    clients?: ClientMetadata[];
    jwks?: { keys: Jwk[] };
    cookies?: {
      keys?: string[];
      long?: { signed?: boolean; httpOnly?: boolean; sameSite?: 'lax' | 'strict' | 'none'; maxAge?: number };
      short?: { signed?: boolean; httpOnly?: boolean; sameSite?: 'lax' | 'strict' | 'none'; maxAge?: number };
    };
    claims?: Record<string, string[] | null>;
    scopes?: string[];
    clientAuthMethods?: string[];
    responseTypes?: string[];
    conformIdTokenClaims?: boolean;
    findAccount?: FindAccount;
    extraTokenClaims?: (ctx: KoaContextWithOIDC, token: IssuedToken) => Promise<JsonObject | undefined> | JsonObject | undefined;
    issueRefreshToken?: (ctx: KoaContextWithOIDC, client: Client, source: unknown) => Promise<boolean> | boolean;
    expiresWithSession?: (ctx: KoaContextWithOIDC, source: unknown) => Promise<boolean> | boolean;
    rotateRefreshToken?: boolean;
    pkce?: { required?: (ctx: KoaContextWithOIDC, client: Client) => boolean };
    interactions?: { url?: (ctx: KoaContextWithOIDC, interaction: Interaction) => Promise<string> | string };
    clientBasedCORS?: (ctx: KoaContextWithOIDC, origin: string, client: Client) => boolean;
    renderError?: (ctx: KoaContextWithOIDC, out: Record<string, string>, error: Error) => Promise<void> | void;
    ttl?: Record<string, number | TtlFunction>;
    features?: {
      devInteractions?: { enabled: boolean };
      clientCredentials?: { enabled: boolean };
      revocation?: {
        enabled: boolean;
        allowedPolicy?: (ctx: KoaContextWithOIDC, client: Client, token: IssuedToken) => Promise<boolean> | boolean;
      };
      introspection?: {
        enabled: boolean;
        allowedPolicy?: (ctx: KoaContextWithOIDC, client: Client, token: IssuedToken) => Promise<boolean> | boolean;
      };
      userinfo?: { enabled: boolean };
      rpInitiatedLogout?: {
        enabled: boolean;
        logoutSource?: (ctx: KoaContextWithOIDC, form: string) => Promise<void> | void;
        postLogoutSuccessSource?: (ctx: KoaContextWithOIDC) => Promise<void> | void;
      };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (ctx: KoaContextWithOIDC, client: Client, oneOf?: string[]) => Promise<string | string[] | undefined> | string | string[] | undefined;
        useGrantedResource?: (ctx: KoaContextWithOIDC, model: unknown) => Promise<boolean> | boolean;
        getResourceServerInfo?: (ctx: KoaContextWithOIDC, resourceIndicator: string, client: Client) => Promise<ResourceServerInfo> | ResourceServerInfo;
      };
    };
  }

  export type GrantTypeHandler = (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>;

  export class Provider extends EventEmitter {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    proxy: boolean;
    readonly Client: ClientModel;
    readonly Grant: GrantModel;
    readonly AccessToken: AccessTokenModel;
    readonly RefreshToken: RefreshTokenModel;
    readonly IdToken: IdTokenModel;
    readonly ResourceServer: ResourceServerModel;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    pathFor(name: string): string;
    registerGrantType(name: string, handler: GrantTypeHandler, params?: string[] | Set<string>, dupes?: string[] | Set<string>): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }

  /** Errors that serialise to standard `{ error, error_description }` OAuth responses. */
  export interface OIDCProviderError extends Error {
    error: string;
    error_description?: string;
    status: number;
    statusCode: number;
  }

  export const errors: {
    InvalidGrant: new (detail?: string) => OIDCProviderError;
    InvalidRequest: new (description?: string, code?: number) => OIDCProviderError;
    InvalidScope: new (description: string, scope: string) => OIDCProviderError;
    InvalidTarget: new (description?: string) => OIDCProviderError;
    SessionNotFound: new (description?: string) => OIDCProviderError;
  };

  export default Provider;
}
