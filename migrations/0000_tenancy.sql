CREATE SCHEMA "tenancy";
--> statement-breakpoint
CREATE TABLE "tenancy"."api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"key_hash" text NOT NULL,
	"key_prefix" text NOT NULL,
	"scopes" text[],
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenancy"."oidc_providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"provider_key" text DEFAULT 'oidc' NOT NULL,
	"client_id" text NOT NULL,
	"client_secret" text,
	"issuer_uri" text NOT NULL,
	"authorization_uri" text,
	"token_uri" text NOT NULL,
	"user_info_uri" text,
	"jwk_set_uri" text NOT NULL,
	"end_session_uri" text,
	"introspection_uri" text,
	"advertised_issuer" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tenancy"."roles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"hierarchy_order" integer NOT NULL,
	"scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "roles_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "tenancy"."tenants" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"display_name" text NOT NULL,
	"description" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"first_login_role_id" uuid NOT NULL,
	"default_role_id" uuid NOT NULL,
	"file_internal_publish_enabled" boolean DEFAULT true NOT NULL,
	"file_direct_share_enabled" boolean DEFAULT true NOT NULL,
	"session_max_concurrent" integer DEFAULT 50 NOT NULL,
	"session_recording_enabled" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tenants_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "tenancy"."users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"subject" text NOT NULL,
	"username" text NOT NULL,
	"email" text,
	"display_name" text,
	"role_id" uuid NOT NULL,
	"is_service" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_login_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "tenancy"."api_keys" ADD CONSTRAINT "api_keys_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "tenancy"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenancy"."api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "tenancy"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenancy"."oidc_providers" ADD CONSTRAINT "oidc_providers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "tenancy"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenancy"."tenants" ADD CONSTRAINT "tenants_first_login_role_id_roles_id_fk" FOREIGN KEY ("first_login_role_id") REFERENCES "tenancy"."roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenancy"."tenants" ADD CONSTRAINT "tenants_default_role_id_roles_id_fk" FOREIGN KEY ("default_role_id") REFERENCES "tenancy"."roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenancy"."users" ADD CONSTRAINT "users_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "tenancy"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tenancy"."users" ADD CONSTRAINT "users_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "tenancy"."roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_uq" ON "tenancy"."api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "tenancy"."api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_providers_tenant_uq" ON "tenancy"."oidc_providers" USING btree ("tenant_id");--> statement-breakpoint
CREATE INDEX "oidc_providers_issuer_idx" ON "tenancy"."oidc_providers" USING btree ("issuer_uri");--> statement-breakpoint
CREATE UNIQUE INDEX "users_tenant_subject_uq" ON "tenancy"."users" USING btree ("tenant_id","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "users_tenant_username_uq" ON "tenancy"."users" USING btree ("tenant_id",lower("username"));