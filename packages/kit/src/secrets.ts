import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A secret generated on first use and kept in the data directory, so restarts reuse it. */
export function persistentSecret(dataDir: string, name: string, bytes = 32): string {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, name);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    const secret = randomBytes(bytes).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return fs.readFileSync(file, 'utf8').trim();
  }
}
