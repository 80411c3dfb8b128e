DROP INDEX "tenancy"."oidc_providers_issuer_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_providers_issuer_client_uq" ON "tenancy"."oidc_providers" USING btree ("issuer_uri","client_id");