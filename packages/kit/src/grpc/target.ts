import { isIPv4, isIPv6 } from 'node:net';

/**
 * gRPC target syntax accepted for engine models (spec: "Gateway-side model configuration types"):
 *
 * - `host:port`                          a single endpoint (kind `single`)
 * - `dns:///name:port`                   DNS discovery, re-resolved periodically (kind `dns`)
 * - `host:port,host:port`                unprefixed fixed list (kind `list`)
 * - `static:///host:port,host:port`      explicit fixed list, the preferred form (kind `list`)
 *
 * Hosts are DNS names, IPv4 literals or bracketed IPv6 literals (`[::1]:50051`); the port is
 * always required (1-65535). Anything else is refused with a {@link GrpcTargetError} whose message
 * says exactly why.
 */

/** Thrown by {@link parseGrpcTarget}; the message is safe to return to an administrator. */
export class GrpcTargetError extends Error {
  override readonly name = 'GrpcTargetError';
}

export type GrpcTargetKind = 'single' | 'dns' | 'list';

export interface ParsedGrpcTarget {
  kind: GrpcTargetKind;
  /** The target string handed to grpc-js (uses the resolvers registered in ./resolvers.ts). */
  channelTarget: string;
  /** Normalised `host:port` entries (IPv6 hosts bracketed), in configuration order. */
  addresses: string[];
}

export interface HostPort {
  /** Host without brackets (IPv6 literals unbracketed). */
  host: string;
  port: number;
}

/** URI scheme of the resolver that serves `single` and `dns` targets (periodic re-resolution). */
export const VOXGATE_DNS_SCHEME = 'voxgate-dns';
/** URI scheme of the resolver that serves fixed lists (`static:///…` and unprefixed lists). */
export const VOXGATE_STATIC_SCHEME = 'voxgate-static';

const ACCEPTED =
  'accepted forms: host:port, dns:///host:port, static:///host:port,host:port or host:port,host:port';

/** Schemes gRPC knows about, refused by name so the message is clear (`unix:/x` is not a host). */
const KNOWN_FOREIGN_SCHEMES = ['ipv4', 'ipv6', 'unix', 'unix-abstract', 'vsock', 'xds', 'http', 'https', 'grpc', 'passthrough'];

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** True for a syntactically valid DNS host name (letters, digits, hyphens; dot-separated labels). */
export function isValidHostname(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const trimmed = host.endsWith('.') ? host.slice(0, -1) : host;
  if (trimmed.length === 0) return false;
  const labels = trimmed.split('.');
  if (!labels.every((l) => LABEL.test(l))) return false;
  // A name made only of digits and dots must be an IPv4 literal, not "999.1.1.1".
  if (labels.every((l) => /^\d+$/.test(l))) return isIPv4(trimmed);
  return true;
}

/**
 * Parses `host:port` or `[v6]:port`. With `portRequired` false, a bare host is accepted (port 0
 * means "none"). Returns the problem as a string instead of throwing.
 */
export function parseHostPort(entry: string, portRequired = true): HostPort | string {
  if (entry.length === 0) return 'is empty';
  let host: string;
  let portText: string | undefined;
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    if (close < 0) return `'${entry}' has an unclosed '[' (IPv6 literals are written [addr]:port)`;
    host = entry.slice(1, close);
    const rest = entry.slice(close + 1);
    if (rest.length > 0) {
      if (!rest.startsWith(':')) return `'${entry}' has unexpected characters after ']'`;
      portText = rest.slice(1);
    }
    if (!isIPv6(host)) return `'${host}' in '${entry}' is not a valid IPv6 address`;
  } else {
    const colons = entry.split(':').length - 1;
    if (colons > 1) {
      return `'${entry}' looks like an IPv6 address without brackets (write [addr]:port)`;
    }
    if (colons === 1) {
      const i = entry.indexOf(':');
      host = entry.slice(0, i);
      portText = entry.slice(i + 1);
    } else {
      host = entry;
    }
    if (host.length === 0) return `'${entry}' has no host`;
    if (!isIPv4(host) && !isValidHostname(host)) {
      return `'${host}' in '${entry}' is not a valid host name or IP address`;
    }
  }
  if (portText === undefined) {
    if (portRequired) return `'${entry}' has no port (expected host:port)`;
    return { host, port: 0 };
  }
  if (!/^\d{1,5}$/.test(portText)) return `'${entry}' has an invalid port '${portText}' (expected 1-65535)`;
  const port = Number(portText);
  if (port < 1 || port > 65535) return `'${entry}' has port ${port} outside 1-65535`;
  return { host, port };
}

/** Formats a host and port back to `host:port`, bracketing IPv6 literals. */
export function formatHostPort(hp: HostPort): string {
  return `${isIPv6(hp.host) ? `[${hp.host}]` : hp.host}:${hp.port}`;
}

function parseList(list: string, what: string): string[] {
  const entries = list.split(',');
  const out: string[] = [];
  const seen = new Set<string>();
  entries.forEach((raw, i) => {
    if (raw.length === 0) {
      throw new GrpcTargetError(
        entries.length === 1
          ? `${what} has no endpoints`
          : `${what} entry ${i + 1} of ${entries.length} is empty (check for a stray comma)`,
      );
    }
    const hp = parseHostPort(raw);
    if (typeof hp === 'string') throw new GrpcTargetError(`${what} entry ${i + 1}: ${hp}`);
    const norm = formatHostPort(hp);
    if (seen.has(norm.toLowerCase())) throw new GrpcTargetError(`${what} lists ${norm} more than once`);
    seen.add(norm.toLowerCase());
    out.push(norm);
  });
  return out;
}

/**
 * Validates a target and says how the client factory will dial it. Throws {@link GrpcTargetError}
 * with the reason when the target is not one of the accepted forms.
 */
export function parseGrpcTarget(target: string): ParsedGrpcTarget {
  if (typeof target !== 'string' || target.length === 0) throw new GrpcTargetError('target is empty');
  if (target.length > 2048) throw new GrpcTargetError('target is longer than 2048 characters');
  if (/\s/.test(target)) throw new GrpcTargetError('target must not contain whitespace');

  const uri = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/]*)\/(.*)$/.exec(target);
  if (uri) {
    const scheme = (uri[1] ?? '').toLowerCase();
    const authority = uri[2] ?? '';
    const path = uri[3] ?? '';
    if (scheme === 'dns') {
      if (authority.length > 0) {
        throw new GrpcTargetError(
          `dns target names a DNS server ('${authority}'), which is not supported; write dns:///name:port`,
        );
      }
      if (path.includes(',')) {
        throw new GrpcTargetError('dns target must name exactly one name:port (use static:/// for a list)');
      }
      const hp = parseHostPort(path);
      if (typeof hp === 'string') throw new GrpcTargetError(`dns target ${hp}`);
      const norm = formatHostPort(hp);
      return { kind: 'dns', channelTarget: `${VOXGATE_DNS_SCHEME}:///${norm}`, addresses: [norm] };
    }
    if (scheme === 'static') {
      if (authority.length > 0) {
        throw new GrpcTargetError(`static target must be written static:///host:port,... (found authority '${authority}')`);
      }
      const addresses = parseList(path, 'static target');
      return { kind: 'list', channelTarget: `${VOXGATE_STATIC_SCHEME}:///${addresses.join(',')}`, addresses };
    }
    throw new GrpcTargetError(`unknown target scheme '${uri[1]}://'; ${ACCEPTED}`);
  }
  const schemeLike = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(target);
  if (schemeLike) {
    const s = (schemeLike[1] ?? '').toLowerCase();
    if (s === 'dns' || s === 'static') {
      throw new GrpcTargetError(`${s} targets must be written ${s}:///host:port (three slashes)`);
    }
    if (KNOWN_FOREIGN_SCHEMES.includes(s)) {
      throw new GrpcTargetError(`unknown target scheme '${schemeLike[1]}:'; ${ACCEPTED}`);
    }
  }
  if (target.includes('/')) throw new GrpcTargetError(`target '${target}' is not host:port; ${ACCEPTED}`);

  if (target.includes(',')) {
    const addresses = parseList(target, 'target list');
    return { kind: 'list', channelTarget: `${VOXGATE_STATIC_SCHEME}:///${addresses.join(',')}`, addresses };
  }
  const hp = parseHostPort(target);
  if (typeof hp === 'string') throw new GrpcTargetError(`target ${hp}`);
  const norm = formatHostPort(hp);
  return { kind: 'single', channelTarget: `${VOXGATE_DNS_SCHEME}:///${norm}`, addresses: [norm] };
}
