ALTER TABLE "member_daily_usage" ADD COLUMN "speech_seconds" real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "member_daily_usage" ADD COLUMN "speech_characters" bigint DEFAULT 0 NOT NULL;