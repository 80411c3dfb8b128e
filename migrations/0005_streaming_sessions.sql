CREATE SCHEMA "sessions";
--> statement-breakpoint
CREATE TABLE "sessions"."session_segments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"session_id" uuid NOT NULL,
	"segment_index" integer NOT NULL,
	"transcript" text NOT NULL,
	"confidence" double precision,
	"words" jsonb,
	"start_seconds" double precision NOT NULL,
	"end_seconds" double precision NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions"."streaming_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"state" text NOT NULL,
	"requested_model_alias" text NOT NULL,
	"resolved_model_name" text NOT NULL,
	"used_fallback" boolean DEFAULT false NOT NULL,
	"language" text NOT NULL,
	"start_time" timestamp with time zone DEFAULT now() NOT NULL,
	"end_time" timestamp with time zone,
	"duration_ms" bigint DEFAULT 0 NOT NULL,
	"words_count" integer DEFAULT 0 NOT NULL,
	"segment_count" integer DEFAULT 0 NOT NULL,
	"recording_requested" boolean DEFAULT false NOT NULL,
	"recording_enabled" boolean DEFAULT false NOT NULL,
	"recording_bytes" bigint DEFAULT 0 NOT NULL,
	"recording_purged_at" timestamp with time zone,
	"content_purged_at" timestamp with time zone,
	"itn_requested" boolean DEFAULT false NOT NULL,
	"diarization_requested" boolean DEFAULT false NOT NULL,
	"interim_results" boolean DEFAULT true NOT NULL,
	"client_address" text NOT NULL,
	"user_agent" text,
	"failure_reason" text,
	"metadata" jsonb,
	"owner_instance" text,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "speaker_models"."seeded_families" (
	"tenant_id" uuid NOT NULL,
	"family" text NOT NULL,
	"seeded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sessions"."session_segments" ADD CONSTRAINT "session_segments_session_id_streaming_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "sessions"."streaming_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "session_segments_index_uq" ON "sessions"."session_segments" USING btree ("session_id","segment_index");--> statement-breakpoint
CREATE INDEX "streaming_sessions_user_idx" ON "sessions"."streaming_sessions" USING btree ("tenant_id","user_id","start_time");--> statement-breakpoint
CREATE INDEX "streaming_sessions_tenant_idx" ON "sessions"."streaming_sessions" USING btree ("tenant_id","start_time");--> statement-breakpoint
CREATE INDEX "streaming_sessions_live_idx" ON "sessions"."streaming_sessions" USING btree ("state","heartbeat_at") WHERE state in ('CREATED', 'ACTIVE');--> statement-breakpoint
CREATE UNIQUE INDEX "seeded_families_pk" ON "speaker_models"."seeded_families" USING btree ("tenant_id","family");