import { z } from 'zod';

const url = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => { try { const u = new URL(v); return u.protocol === 'https:' || u.protocol === 'http:'; } catch { return false; } }, 'must be an http(s) URL');
const optionalUrl = url.nullish().transform((v) => v ?? null);

/** OidcProviderCreateRequest as validated by the service (GraphQL and REST alike). */
export const oidcProviderInputSchema = z.object({
  providerKey: z.string().trim().min(1).max(64).nullish().transform((v) => v ?? 'oidc'),
  clientId: z.string().trim().min(1).max(256),
  clientSecret: z.string().max(1024).nullish().transform((v) => (v ? v : null)),
  issuerUri: url,
  authorizationUri: optionalUrl,
  tokenUri: url,
  userInfoUri: optionalUrl,
  jwkSetUri: url,
  endSessionUri: optionalUrl,
  introspectionUri: optionalUrl,
  advertisedIssuer: optionalUrl,
});

export type OidcProviderValues = z.infer<typeof oidcProviderInputSchema>;
