ALTER TABLE "sessions"."streaming_sessions" ADD COLUMN "usage_settled_at" timestamp with time zone;--> statement-breakpoint
-- sessions that ended before settlement was recorded were settled when they ended
UPDATE "sessions"."streaming_sessions" SET "usage_settled_at" = "end_time" WHERE "state" NOT IN ('CREATED', 'ACTIVE');--> statement-breakpoint
CREATE INDEX "streaming_sessions_unsettled_idx" ON "sessions"."streaming_sessions" USING btree ("end_time") WHERE usage_settled_at IS NULL AND state NOT IN ('CREATED', 'ACTIVE');