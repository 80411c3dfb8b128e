import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { badInput } from '@voxgate/kit';
import type { OidcProviderValues } from './provider-input';

const URL_FIELDS = ['issuerUri', 'authorizationUri', 'tokenUri', 'userInfoUri', 'jwkSetUri', 'endSessionUri', 'introspectionUri'] as const;

function isInternalAddress(address: string): boolean {
  if (net.isIPv4(address)) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  const v6 = address.toLowerCase();
  if (v6.startsWith('::ffff:')) return isInternalAddress(v6.slice(7));
  return v6 === '::1' || v6 === '::' || v6.startsWith('fc') || v6.startsWith('fd') || v6.startsWith('fe80');
}

/**
 * The platform calls a tenant's provider URLs from inside the deployment, with the client secret.
 * Administrators outside the system tenant may therefore only name public https endpoints; the
 * system tenant's operators may point at internal ones (a provider on the private network).
 */
export async function assertPublicEndpoints(values: OidcProviderValues): Promise<void> {
  for (const field of URL_FIELDS) {
    const value = values[field];
    if (!value) continue;
    const url = new URL(value);
    const reject = (why: string) => {
      throw badInput(`${field}: ${why}`, { fields: [{ field, message: why }] });
    };
    if (url.protocol !== 'https:') reject('must use https');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost')) reject('must not point at this host');
    let addresses: string[];
    try {
      addresses = net.isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      addresses = []; // not resolvable now: it cannot reach anything internal either
    }
    if (addresses.some(isInternalAddress)) reject('must not point at a private or loopback address');
  }
}
