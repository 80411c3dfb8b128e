import * as client from 'openid-client';

/**
 * A minimal browser for driving an OIDC provider's login page: manual redirects and a cookie jar.
 */
export class Browser {
  private readonly cookies = new Map<string, string>();

  async fetch(url: URL, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });
    for (const setCookie of res.headers.getSetCookie()) {
      const [pair = '', ...attributes] = setCookie.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => {
        const [key = '', val = ''] = attribute.trim().split('=');
        if (key.toLowerCase() === 'max-age') return Number(val) <= 0;
        if (key.toLowerCase() === 'expires') return Date.parse(val) <= Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows redirects until one points at `stopAt` (not fetched) or a non-redirect response. */
  async follow(res: Response, from: URL, stopAt: string): Promise<{ callback?: URL; page?: Response; url: URL }> {
    let current = res;
    let url = from;
    for (let hops = 0; hops < 20; hops += 1) {
      if (current.status < 300 || current.status >= 400) return { page: current, url };
      const location = current.headers.get('location');
      if (!location) throw new Error(`redirect without location from ${url.href}`);
      url = new URL(location, url);
      if (url.href.startsWith(stopAt)) return { callback: url, url };
      current = await this.fetch(url);
    }
    throw new Error('too many redirects');
  }
}

interface HtmlForm {
  action: URL;
  fields: Record<string, string>;
}

function parseForms(html: string, base: URL): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const match of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const attributes = match[1] ?? '';
    const body = match[2] ?? '';
    const action = /action="([^"]*)"/i.exec(attributes)?.[1] ?? base.href;
    const fields: Record<string, string> = {};
    for (const input of body.matchAll(/<input\b([^>]*)>/gi)) {
      const name = /name="([^"]*)"/i.exec(input[1] ?? '')?.[1];
      const value = /value="([^"]*)"/i.exec(input[1] ?? '')?.[1] ?? '';
      if (name) fields[name] = value;
    }
    forms.push({ action: new URL(action.replace(/&amp;/g, '&'), base), fields });
  }
  return forms;
}

export interface PkceLoginOptions {
  /** the provider's issuer (discovery at `${issuer}/.well-known/openid-configuration`) */
  issuer: string;
  clientId: string;
  redirectUri: string;
  username: string;
  password: string;
  scope?: string;
}

export interface PkceLoginResult {
  /** the authorization code delivered to the redirect URI */
  code: string;
  codeVerifier: string;
  redirectUri: string;
  state: string;
}

/**
 * Runs the browser half of the authorization code flow with PKCE: builds the authorization
 * request with an S256 challenge, signs in on the provider's login page and stops at the
 * redirect URI, returning the code and verifier for the back-channel exchange.
 */
export async function pkceLogin(opts: PkceLoginOptions): Promise<PkceLoginResult> {
  const cfg = await client.discovery(new URL(opts.issuer), opts.clientId, undefined, client.None(), {
    execute: [client.allowInsecureRequests],
  });
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(cfg, {
    redirect_uri: opts.redirectUri,
    scope: opts.scope ?? 'openid profile email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  const browser = new Browser();
  const first = await browser.fetch(authorizationUrl);
  const opened = await browser.follow(first, authorizationUrl, opts.redirectUri);
  if (!opened.page) throw new Error(`expected a login page, got a redirect to ${opened.callback?.href}`);
  if (opened.page.status !== 200) throw new Error(`login page answered ${opened.page.status}: ${await opened.page.text()}`);
  const html = await opened.page.text();
  const login = parseForms(html, opened.url).find((form) => form.action.pathname.endsWith('/login'));
  if (!login) throw new Error(`no login form on ${opened.url.href}`);
  const posted = await browser.fetch(login.action, {
    method: 'POST',
    form: { ...login.fields, username: opts.username, password: opts.password },
  });
  const { callback, page } = await browser.follow(posted, login.action, opts.redirectUri);
  if (!callback) throw new Error(`login did not reach the redirect URI (status ${page?.status}: ${await page?.text()})`);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`redirect without a code: ${callback.href}`);
  if (callback.searchParams.get('state') !== state) throw new Error('state mismatch on the redirect');
  return { code, codeVerifier, redirectUri: opts.redirectUri, state };
}
