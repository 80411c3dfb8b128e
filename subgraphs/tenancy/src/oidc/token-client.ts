import { appError } from '@voxgate/kit';
import type { OidcProviderRow } from '../db/schema';

/** A standard OAuth 2.0 token endpoint response (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type?: string;
  expires_in?: number;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
}

/** Why the identity provider did not give tokens: it said no, or it could not be reached. */
export class IdpError extends Error {
  constructor(
    readonly kind: 'rejected' | 'unreachable',
    readonly oauthError: string | null,
    message: string,
  ) {
    super(message);
  }
}

type ProviderClient = Pick<OidcProviderRow, 'clientId' | 'clientSecret'>;

const TIMEOUT_MS = 10_000;

function clientAuth(p: ProviderClient, body: URLSearchParams): Record<string, string> {
  if (p.clientSecret) {
    const basic = Buffer.from(`${encodeURIComponent(p.clientId)}:${encodeURIComponent(p.clientSecret)}`).toString('base64');
    return { authorization: `Basic ${basic}` };
  }
  body.set('client_id', p.clientId);
  return {};
}

/** POSTs a form to one of the provider's endpoints with client authentication. */
export async function postForm(p: ProviderClient, url: string, params: Record<string, string>): Promise<{ status: number; body: unknown }> {
  const body = new URLSearchParams(params);
  const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...clientAuth(p, body) };
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new IdpError('unreachable', null, `identity provider unreachable: ${(e as Error).message}`);
  }
  if (res.status >= 500) throw new IdpError('unreachable', null, `identity provider answered ${res.status}`);
  const text = await res.text();
  let parsed: unknown;
  try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
  return { status: res.status, body: parsed };
}

export async function tokenRequest(p: ProviderClient & Pick<OidcProviderRow, 'tokenUri'>, params: Record<string, string>): Promise<TokenResponse> {
  const { status, body } = await postForm(p, p.tokenUri, params);
  const obj = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (status >= 400 || typeof obj.access_token !== 'string') {
    const code = typeof obj.error === 'string' ? obj.error : null;
    const desc = typeof obj.error_description === 'string' ? obj.error_description : null;
    throw new IdpError('rejected', code, desc ?? code ?? `token endpoint answered ${status}`);
  }
  return obj as unknown as TokenResponse;
}

/** Maps a provider failure onto the platform's error vocabulary with the status the spec asks for. */
export function idpFailure(e: unknown, rejectedCode: 'UNAUTHENTICATED' | 'BAD_USER_INPUT', rejectedMessage: string) {
  if (e instanceof IdpError) {
    if (e.kind === 'unreachable') return appError('UNAVAILABLE', 'Identity provider unreachable');
    return appError(rejectedCode, rejectedMessage, { providerError: e.oauthError });
  }
  return e;
}

const discoveryCache = new Map<string, { at: number; doc: Record<string, unknown> }>();

/** The provider's discovery document (for endpoints the tenant configuration has no field for). */
export async function discover(issuerUri: string): Promise<Record<string, unknown> | null> {
  const hit = discoveryCache.get(issuerUri);
  if (hit && Date.now() - hit.at < 5 * 60_000) return hit.doc;
  const url = `${issuerUri.replace(/\/$/, '')}/.well-known/openid-configuration`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    throw new IdpError('unreachable', null, `identity provider unreachable: ${(e as Error).message}`);
  }
  if (res.status >= 500) throw new IdpError('unreachable', null, `discovery answered ${res.status}`);
  if (!res.ok) return null;
  let doc: Record<string, unknown>;
  try {
    doc = (await res.json()) as Record<string, unknown>;
  } catch {
    return null; // not a discovery document: behave as if the provider published none
  }
  discoveryCache.set(issuerUri, { at: Date.now(), doc });
  return doc;
}
