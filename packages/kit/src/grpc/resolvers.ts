import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import type { ChannelOptions } from '@grpc/grpc-js';
import { parseHostPort, VOXGATE_DNS_SCHEME, VOXGATE_STATIC_SCHEME, type HostPort } from './target';

/**
 * Name resolvers for engine targets, registered with grpc-js under private schemes.
 *
 * Why not grpc-js's own `dns:` resolver: in @grpc/grpc-js 1.14 (build/src/resolver-dns.js) the
 * DNS resolver only resolves when asked to (`updateResolution()`), and the channel asks only when
 * it leaves IDLE or when the load balancer reports that a READY connection dropped
 * (resolving-load-balancer.js `requestReresolution`, round-robin `updateState`). Its
 * `nextResolutionTimer` (`grpc.dns_min_time_between_resolutions_ms`, default 30 s) is a rate
 * limit, not a refresh: when it fires it resolves again only if a request arrived meanwhile
 * (`continueResolving`). So while every endpoint stays healthy, grpc-js never looks the name up
 * again and a new engine added behind the name receives no traffic. Our `voxgate-dns` resolver
 * therefore re-resolves on a timer (`voxgate.dns_refresh_interval_ms`, default 30 s) even while
 * connected, and also on the channel's requests (rate-limited by
 * `grpc.dns_min_time_between_resolutions_ms`).
 *
 * grpc-js's `ipv4:`/`ipv6:` multi-address targets accept IP literals only; `voxgate-static`
 * serves fixed lists that may name hosts: each entry is one round-robin endpoint (a host name
 * resolving to several addresses becomes one endpoint with several addresses); membership never
 * changes.
 */

/** Resolves a host name to IP addresses (injectable for tests). */
export type HostLookup = (hostname: string) => Promise<string[]>;

export const OPT_DNS_REFRESH_MS = 'voxgate.dns_refresh_interval_ms';
export const OPT_LOOKUP_ID = 'voxgate.lookup_id';
export const OPT_MIN_RESOLUTION_MS = 'grpc.dns_min_time_between_resolutions_ms';
export const DEFAULT_DNS_REFRESH_MS = 30_000;
export const DEFAULT_MIN_RESOLUTION_MS = 1_000;

const defaultLookup: HostLookup = async (hostname) => {
  const all = await dns.lookup(hostname, { all: true });
  return all.map((a) => a.address);
};

const lookups = new Map<number, HostLookup>();
let nextLookupId = 1;

/** Registers a lookup function for one channel; returns the id to put in its channel options. */
export function registerLookup(fn: HostLookup): number {
  const id = nextLookupId++;
  lookups.set(id, fn);
  return id;
}

export function unregisterLookup(id: number): void {
  lookups.delete(id);
}

function numberOption(options: ChannelOptions, key: string, fallback: number): number {
  const v: unknown = options[key];
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback;
}

function lookupFor(options: ChannelOptions): HostLookup {
  const id: unknown = options[OPT_LOOKUP_ID];
  return (typeof id === 'number' && lookups.get(id)) || defaultLookup;
}

function parseEntries(path: string): HostPort[] {
  return path.split(',').map((e) => {
    const hp = parseHostPort(e);
    if (typeof hp === 'string') throw new Error(`invalid gRPC target entry ${hp}`);
    return hp;
  });
}

type Endpoint = grpc.experimental.Endpoint;

function endpointsKey(endpoints: Endpoint[]): string {
  return endpoints
    .map((e) => e.addresses.map((a) => ('host' in a ? `${a.host}:${a.port}` : a.path)).sort().join('|'))
    .sort()
    .join(',');
}

abstract class RateLimitedResolver implements grpc.experimental.Resolver {
  protected readonly lookup: HostLookup;
  private readonly minIntervalMs: number;
  private pending = false;
  private active = true;
  private lastStart = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private lastKey: string | null = null;

  constructor(
    protected readonly target: grpc.experimental.GrpcUri,
    private readonly listener: grpc.experimental.ResolverListener,
    options: ChannelOptions,
  ) {
    this.lookup = lookupFor(options);
    this.minIntervalMs = numberOption(options, OPT_MIN_RESOLUTION_MS, DEFAULT_MIN_RESOLUTION_MS);
  }

  /** Produces the endpoint list (throws when nothing resolves). */
  protected abstract resolveEndpoints(): Promise<Endpoint[]>;
  /** Called after each completed resolution (periodic refresh hooks in here). */
  protected afterResolution(): void {}

  updateResolution(): void {
    this.active = true;
    if (this.pending) return;
    const wait = this.lastStart === 0 ? 0 : this.lastStart + this.minIntervalMs - Date.now();
    if (wait > 0) {
      if (!this.retryTimer) {
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.resolve(true);
        }, wait);
        this.retryTimer.unref();
      }
      return;
    }
    this.resolve(true);
  }

  /** `always` false: report only when the address set changed (periodic refresh). */
  protected resolve(always: boolean): void {
    if (this.pending || !this.active) return;
    this.pending = true;
    this.lastStart = Date.now();
    this.resolveEndpoints().then(
      (endpoints) => {
        this.pending = false;
        if (!this.active) return;
        const key = endpointsKey(endpoints);
        if (always || key !== this.lastKey) {
          this.lastKey = key;
          this.listener(grpc.experimental.statusOrFromValue(endpoints), {}, null, '');
        }
        this.afterResolution();
      },
      (err: unknown) => {
        this.pending = false;
        if (!this.active) return;
        this.lastKey = null;
        const details = `name resolution failed for ${grpc.experimental.uriToString(this.target)}: ${err instanceof Error ? err.message : String(err)}`;
        this.listener(
          grpc.experimental.statusOrFromError({ code: grpc.status.UNAVAILABLE, details, metadata: new grpc.Metadata() }),
          {},
          null,
          details,
        );
        this.afterResolution();
      },
    );
  }

  destroy(): void {
    this.active = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.lastStart = 0;
    this.lastKey = null;
  }

  protected isActive(): boolean {
    return this.active;
  }

  protected async addressesOf(host: string): Promise<string[]> {
    if (isIP(host)) return [host];
    const found = await this.lookup(host);
    if (found.length === 0) throw new Error(`${host} has no addresses`);
    return found;
  }
}

/** `voxgate-dns:///name:port`: one endpoint per resolved address, re-resolved periodically. */
class RefreshingDnsResolver extends RateLimitedResolver {
  private readonly hostPort: HostPort;
  private readonly refreshMs: number;
  private refreshTimer: NodeJS.Timeout | null = null;

  constructor(target: grpc.experimental.GrpcUri, listener: grpc.experimental.ResolverListener, options: ChannelOptions) {
    super(target, listener, options);
    const [hp] = parseEntries(target.path);
    if (!hp) throw new Error(`invalid gRPC target ${target.path}`);
    this.hostPort = hp;
    this.refreshMs = numberOption(options, OPT_DNS_REFRESH_MS, DEFAULT_DNS_REFRESH_MS);
  }

  protected async resolveEndpoints(): Promise<Endpoint[]> {
    const addrs = await this.addressesOf(this.hostPort.host);
    return addrs.map((host) => ({ addresses: [{ host, port: this.hostPort.port }] }));
  }

  protected override afterResolution(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
    if (!this.isActive() || isIP(this.hostPort.host) || this.refreshMs === 0) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = null;
      this.resolve(false);
    }, this.refreshMs);
    this.refreshTimer.unref();
  }

  override destroy(): void {
    super.destroy();
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = null;
  }

  static getDefaultAuthority(target: grpc.experimental.GrpcUri): string {
    return target.path;
  }
}

/** `voxgate-static:///a:p,b:p`: fixed membership, one round-robin endpoint per entry. */
class StaticListResolver extends RateLimitedResolver {
  private readonly entries: HostPort[];

  constructor(target: grpc.experimental.GrpcUri, listener: grpc.experimental.ResolverListener, options: ChannelOptions) {
    super(target, listener, options);
    this.entries = parseEntries(target.path);
  }

  protected async resolveEndpoints(): Promise<Endpoint[]> {
    const results = await Promise.allSettled(this.entries.map((e) => this.addressesOf(e.host)));
    const endpoints: Endpoint[] = [];
    const failures: string[] = [];
    results.forEach((r, i) => {
      const entry = this.entries[i];
      if (!entry) return;
      if (r.status === 'fulfilled') endpoints.push({ addresses: r.value.map((host) => ({ host, port: entry.port })) });
      else failures.push(`${entry.host}: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`);
    });
    if (endpoints.length === 0) throw new Error(failures.join('; '));
    return endpoints;
  }

  static getDefaultAuthority(target: grpc.experimental.GrpcUri): string {
    return target.path.split(',')[0] ?? target.path;
  }
}

let registered = false;

/** Registers the resolvers with grpc-js (idempotent; called by the client factory). */
export function registerEngineResolvers(): void {
  if (registered) return;
  grpc.experimental.registerResolver(VOXGATE_DNS_SCHEME, RefreshingDnsResolver);
  grpc.experimental.registerResolver(VOXGATE_STATIC_SCHEME, StaticListResolver);
  registered = true;
}
