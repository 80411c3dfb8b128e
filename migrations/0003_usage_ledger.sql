CREATE TABLE "billing"."usage_records" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"quota" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"amount" bigint NOT NULL,
	"state" text NOT NULL,
	"source_key" text NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "usage_records_source_uq" ON "billing"."usage_records" USING btree ("tenant_id","source_key");--> statement-breakpoint
CREATE INDEX "usage_records_period_idx" ON "billing"."usage_records" USING btree ("tenant_id","user_id","quota","period_start") WHERE state <> 'RELEASED';