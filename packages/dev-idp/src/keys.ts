import { createHash, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Jwk } from 'oidc-provider';

export const JWKS_FILE = 'dev-idp-jwks.json';
export const COOKIE_KEYS_FILE = 'dev-idp-cookie-keys.json';

const rsaPrivateJwk = z
  .object({
    kty: z.literal('RSA'),
    kid: z.string().min(1),
    use: z.literal('sig'),
    alg: z.literal('RS256'),
    n: z.string().min(1),
    e: z.string().min(1),
    d: z.string().min(1),
    p: z.string().min(1),
    q: z.string().min(1),
    dp: z.string().min(1),
    dq: z.string().min(1),
    qi: z.string().min(1),
  })
  .strict();

const jwksFile = z.object({ keys: z.array(rsaPrivateJwk).min(1) }).strict();
const cookieKeysFile = z.object({ keys: z.array(z.string().min(32)).min(1) }).strict();

export type SigningJwk = z.infer<typeof rsaPrivateJwk>;

export interface PersistedKeys {
  jwks: { keys: Jwk[] };
  /** Public halves by kid, used to verify our own JWT access tokens at userinfo. */
  verificationKeys: Map<string, KeyObject>;
  cookieKeys: string[];
}

/** RFC 7638 thumbprint, so the kid is a pure function of the key material. */
function rsaThumbprint(n: string, e: string): string {
  return createHash('sha256').update(JSON.stringify({ e, kty: 'RSA', n })).digest('base64url');
}

function generateSigningJwk(): SigningJwk {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  const parts = z
    .object({
      n: z.string(),
      e: z.string(),
      d: z.string(),
      p: z.string(),
      q: z.string(),
      dp: z.string(),
      dq: z.string(),
      qi: z.string(),
    })
    .parse(jwk);
  return { kty: 'RSA', kid: rsaThumbprint(parts.n, parts.e), use: 'sig', alg: 'RS256', ...parts };
}

/**
 * Creates `path` with `contents` unless it already exists, atomically: the
 * file is written under a temporary name and hard-linked into place, so two
 * processes racing on an empty dataDir both end up reading the same winner's
 * keys and no reader ever sees a half-written file.
 */
async function createExclusive(path: string, contents: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, contents, { mode: 0o600 });
  try {
    await link(tmp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(tmp);
  }
}

async function loadOrCreate<T>(path: string, schema: z.ZodType<T>, create: () => T): Promise<T> {
  try {
    return schema.parse(JSON.parse(await readFile(path, 'utf8')));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`dev-idp: cannot use ${path}: ${(error as Error).message}`, { cause: error });
    }
  }
  await createExclusive(path, `${JSON.stringify(create(), null, 2)}\n`);
  // A file created by an older process with a laxer umask is tightened here too.
  await chmod(path, 0o600);
  return schema.parse(JSON.parse(await readFile(path, 'utf8')));
}

export async function loadPersistedKeys(dataDir: string): Promise<PersistedKeys> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });

  const jwks = await loadOrCreate(join(dataDir, JWKS_FILE), jwksFile, () => ({ keys: [generateSigningJwk()] }));
  const cookies = await loadOrCreate(join(dataDir, COOKIE_KEYS_FILE), cookieKeysFile, () => ({
    keys: [randomBytes(32).toString('base64url')],
  }));

  return {
    jwks: { keys: jwks.keys.map((key) => ({ ...key })) },
    // createPublicKey derives the public half from a private JWK.
    verificationKeys: new Map(jwks.keys.map((key) => [key.kid, createPublicKey({ key: { ...key }, format: 'jwk' })])),
    cookieKeys: cookies.keys,
  };
}
