CREATE SCHEMA "speaker_models";
--> statement-breakpoint
CREATE TABLE "speaker_models"."enrollments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"speaker_id" uuid NOT NULL,
	"requested_alias" text,
	"resolved_alias" text,
	"resolved_model_id" uuid NOT NULL,
	"resolved_model_name" text NOT NULL,
	"used_fallback" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "speaker_models"."model_aliases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"family" text NOT NULL,
	"alias" text NOT NULL,
	"type" text NOT NULL,
	"display_name" text NOT NULL,
	"description" text,
	"resolved_model_id" uuid NOT NULL,
	"fallback_model_id" uuid,
	"is_default" boolean DEFAULT false NOT NULL,
	"deprecated" boolean DEFAULT false NOT NULL,
	"deprecation_date" timestamp with time zone,
	"sunset_date" timestamp with time zone,
	"deprecation_message" text,
	"min_hierarchy_order" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "speaker_models"."models" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"family" text NOT NULL,
	"name" text NOT NULL,
	"display_name" text NOT NULL,
	"description" text,
	"status" text NOT NULL,
	"status_message" text,
	"deprecated_at" timestamp with time zone,
	"inactive_at" timestamp with time zone,
	"supported_locales" text[],
	"max_expected_text_length" integer,
	"grpc_target" text NOT NULL,
	"grpc_tls_mode" text NOT NULL,
	"grpc_authority" text,
	"grpc_deadline_ms" integer NOT NULL,
	"grpc_max_inbound_message_bytes" integer,
	"grpc_metadata" jsonb,
	"threshold_defaults" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "speaker_models"."verifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"speaker_id" uuid NOT NULL,
	"requested_alias" text,
	"resolved_alias" text,
	"resolved_model_id" uuid NOT NULL,
	"resolved_model_name" text NOT NULL,
	"used_fallback" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "speaker_models"."voice_prints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"speaker_id" uuid NOT NULL,
	"requested_alias" text,
	"resolved_alias" text,
	"resolved_model_id" uuid NOT NULL,
	"resolved_model_name" text NOT NULL,
	"used_fallback" boolean DEFAULT false NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "speaker_models"."enrollments" ADD CONSTRAINT "enrollments_resolved_model_id_models_id_fk" FOREIGN KEY ("resolved_model_id") REFERENCES "speaker_models"."models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "speaker_models"."model_aliases" ADD CONSTRAINT "model_aliases_resolved_model_id_models_id_fk" FOREIGN KEY ("resolved_model_id") REFERENCES "speaker_models"."models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "speaker_models"."model_aliases" ADD CONSTRAINT "model_aliases_fallback_model_id_models_id_fk" FOREIGN KEY ("fallback_model_id") REFERENCES "speaker_models"."models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "speaker_models"."verifications" ADD CONSTRAINT "verifications_resolved_model_id_models_id_fk" FOREIGN KEY ("resolved_model_id") REFERENCES "speaker_models"."models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "speaker_models"."voice_prints" ADD CONSTRAINT "voice_prints_resolved_model_id_models_id_fk" FOREIGN KEY ("resolved_model_id") REFERENCES "speaker_models"."models"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "enrollments_model_idx" ON "speaker_models"."enrollments" USING btree ("resolved_model_id");--> statement-breakpoint
CREATE UNIQUE INDEX "model_aliases_name_uq" ON "speaker_models"."model_aliases" USING btree ("tenant_id","family","alias");--> statement-breakpoint
CREATE UNIQUE INDEX "model_aliases_default_uq" ON "speaker_models"."model_aliases" USING btree ("tenant_id","family") WHERE is_default;--> statement-breakpoint
CREATE UNIQUE INDEX "models_name_uq" ON "speaker_models"."models" USING btree ("tenant_id","family","name");--> statement-breakpoint
CREATE INDEX "verifications_model_idx" ON "speaker_models"."verifications" USING btree ("resolved_model_id");--> statement-breakpoint
CREATE INDEX "voice_prints_model_idx" ON "speaker_models"."voice_prints" USING btree ("resolved_model_id");