import { createHash, randomInt } from 'node:crypto';

export const KEY_PREFIX = 'vxg_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_RE = /^vxg_[0-9A-Za-z]{64}$/;

/** `vxg_` + 64 base62 characters drawn uniformly from the CSPRNG (~381 bits). */
export function generateApiKey(): string {
  let secret = '';
  for (let i = 0; i < 64; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  return KEY_PREFIX + secret;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 6);
}
