import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/**
 * A test double of an EXTERNAL OpenID provider: one RSA key pair published as a JWKS by a tiny
 * HTTP server on 127.0.0.1, a `sign` helper that mints arbitrary JWTs, and a token endpoint that
 * answers the password grant for the users it was given (so the platform's post-login sync can
 * provision them).
 */
export interface SignOptions {
  /** header alg; defaults to RS256 */
  alg?: string;
  /** header kid; defaults to the issuer's kid (pass null to omit it) */
  kid?: string | null;
  /** signing key; defaults to the issuer's private key */
  key?: CryptoKey | Uint8Array;
  /** seconds from now; defaults to 300. Negative values mint an already-expired token. */
  expiresIn?: number;
}

export interface FakeIssuer {
  /** issuer identifier (also the base URL) */
  url: string;
  jwksUri: string;
  tokenUri: string;
  kid: string;
  clientId: string;
  publicJwk: JWK;
  /** SPKI PEM of the public key, e.g. to attempt an HS256 algorithm-confusion forgery */
  publicKeyPem: string;
  /** signs claims; defaults: iss = url, aud = clientId, iat = now, exp = now + 300 s */
  sign(claims: JWTPayload, opts?: SignOptions): Promise<string>;
  /** subject the token endpoint uses for a username */
  subjectOf(username: string): string;
  /** how many token requests the endpoint has answered */
  tokenRequests: number;
  close(): Promise<void>;
}

export async function startFakeIssuer(opts: { clientId: string; users: Record<string, string> }): Promise<FakeIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `fake-${Math.random().toString(36).slice(2, 10)}`;
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const publicKeyPem = await exportSPKI(publicKey);
  let url = '';

  const subjectOf = (username: string) => `fake-sub-${username}`;

  const sign = async (claims: JWTPayload, o: SignOptions = {}): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const header: { alg: string; typ: string; kid?: string } = { alg: o.alg ?? 'RS256', typ: 'JWT' };
    const k = o.kid === undefined ? kid : o.kid;
    if (k !== null) header.kid = k;
    // shaped like a typical untyped access token (Keycloak, Auth0): it carries the granted scopes
    const payload: JWTPayload = { iss: url, aud: opts.clientId, scope: 'openid profile email', iat: now, exp: now + (o.expiresIn ?? 300), ...claims };
    return new SignJWT(payload).setProtectedHeader(header).sign(o.key ?? privateKey);
  };

  const issuer: FakeIssuer = {
    url: '', jwksUri: '', tokenUri: '', kid, clientId: opts.clientId, publicJwk, publicKeyPem, sign, subjectOf, tokenRequests: 0,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/jwks') return json(res, 200, { keys: [publicJwk] });
    if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
      return json(res, 200, { issuer: url, token_endpoint: `${url}/token`, jwks_uri: `${url}/jwks` });
    }
    if (req.method === 'POST' && path === '/token') {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => { raw += c; });
      req.on('end', () => {
        issuer.tokenRequests++;
        const form = new URLSearchParams(raw);
        const username = form.get('username') ?? '';
        if (form.get('grant_type') !== 'password') return json(res, 400, { error: 'unsupported_grant_type' });
        if (!(username in opts.users) || opts.users[username] !== form.get('password')) {
          return json(res, 400, { error: 'invalid_grant', error_description: 'Invalid user credentials' });
        }
        void sign({ sub: subjectOf(username), preferred_username: username, email: `${username}@fake-idp.test`, azp: opts.clientId })
          .then((access) => json(res, 200, {
            access_token: access, refresh_token: `refresh-${username}-${Date.now()}`, token_type: 'Bearer', expires_in: 300,
          }))
          .catch(() => json(res, 500, { error: 'server_error' }));
      });
      return undefined;
    }
    return json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  issuer.url = url;
  issuer.jwksUri = `${url}/jwks`;
  issuer.tokenUri = `${url}/token`;
  return issuer;
}
