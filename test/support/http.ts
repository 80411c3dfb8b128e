export interface Caller {
  apiKey?: string;
  bearer?: string;
  tenant?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A thin client for the public edge, shaped like what a REST or GraphQL user sends. */
export class EdgeClient {
  constructor(readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(method: string, path: string, opts: Caller & { body?: unknown; rawBody?: string } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
    if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
    if (opts.tenant) headers['x-tenant'] = opts.tenant;
    let body: string | undefined;
    if (opts.rawBody !== undefined) { body = opts.rawBody; headers['content-type'] = 'application/json'; }
    else if (opts.body !== undefined) { body = JSON.stringify(opts.body); headers['content-type'] = 'application/json'; }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = Record<string, unknown>>(path: string, opts?: Caller) { return this.request<T>('GET', path, opts); }
  post<T = Record<string, unknown>>(path: string, body?: unknown, opts?: Caller) { return this.request<T>('POST', path, { ...opts, body }); }
  put<T = Record<string, unknown>>(path: string, body?: unknown, opts?: Caller) { return this.request<T>('PUT', path, { ...opts, body }); }
  delete<T = Record<string, unknown>>(path: string, opts?: Caller) { return this.request<T>('DELETE', path, opts); }

  async gql<T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, opts: Caller = {}) {
    const res = await this.request<{ data?: T | null; errors?: { message: string; extensions?: { code?: string } }[] }>(
      'POST', '/graphql', { ...opts, body: { query, variables } });
    return { status: res.status, data: res.body?.data ?? null, errors: res.body?.errors ?? [] };
  }
}
