import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const optionalUrl = z
  .string()
  .trim()
  .min(1)
  .refine((v) => { try { new URL(v); return true; } catch { return false; } }, 'must be a URL')
  .optional();

const existingFile = z.string().min(1).refine((p) => fs.existsSync(p), 'no such file');

const booleanish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Every setting the platform reads from the environment; names are part of the operator contract. */
export const configSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('127.0.0.1'),
    PUBLIC_URL: optionalUrl,
    DATABASE_URL: optionalUrl,
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(2),
    DATABASE_TX_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(8),
    REDIS_URL: optionalUrl,
    DATA_DIR: z.string().min(1).default('./.data'),
    /** shared directory of blobs (recordings); every process of a distributed deployment must see the same one */
    BLOB_DIR: z.string().min(1).optional(),
    BOOTSTRAP_API_KEY: z
      .string()
      .regex(/^vxg_[0-9A-Za-z]{64}$/, 'must be vxg_ followed by 64 base62 characters')
      .optional(),
    VOXGATE_MODE: z.enum(['single', 'distributed']).default('single'),
    RATE_LIMITS: z.enum(['on', 'off']).default('on'),
    INTERNAL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DEV_IDP_ENABLED: booleanish.optional(),
    DEV_IDP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    DEV_IDP_REDIRECT_URIS: z.string().optional(),
    DEV_ADMIN_USERNAME: z.string().min(1).default('admin'),
    DEV_ADMIN_PASSWORD: z.string().min(1).default('admin'),
    OIDC_ISSUER: optionalUrl,
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: z.string().min(1).optional(),
    SUBGRAPH_URLS: z.string().optional(),
    // read by the kit's gRPC factory (grpc/config.ts); declared here so a wrong path fails at start
    GRPC_CA_FILE: existingFile.optional(),
    GRPC_CLIENT_CERT_FILE: existingFile.optional(),
    GRPC_CLIENT_KEY_FILE: existingFile.optional(),
    // the platform's reference ASR engine (a gRPC target); every tenant gets a model and default alias for it
    ASR_ENGINE_TARGET: z.string().trim().min(1).optional(),
    // without ASR_ENGINE_TARGET, the embedded start runs the reference engine itself on this port
    // (fixed, because the seeded models keep the target)
    ASR_ENGINE_EMBEDDED: z.enum(['on', 'off']).default('on'),
    ASR_ENGINE_PORT: z.coerce.number().int().min(1).max(65535).default(50061),
    // a live streaming session whose edge has not heart-beaten for this long is failed by any edge
    SESSION_ORPHAN_SECONDS: z.coerce.number().int().min(3).max(3600).default(30),
  })
  .superRefine((c, ctx) => {
    if (c.OIDC_ISSUER && !c.OIDC_CLIENT_ID) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_ID'], message: 'is required when OIDC_ISSUER is set' });
    }
  });

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends RawConfig {
  dataDir: string;
  devIdpEnabled: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Validates the environment once at start; every problem is reported, not just the first. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(
    Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')),
  );
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
  }
  const c = parsed.data;
  return {
    ...c,
    dataDir: path.resolve(c.DATA_DIR),
    devIdpEnabled: c.DEV_IDP_ENABLED ?? !c.OIDC_ISSUER,
  };
}
