-- migrate: no-transaction
-- Runs outside a transaction (src/db/migrator.ts), statement by statement, so that
-- conversation_turns, the largest table, is never locked for longer than a catalog change:
-- its new columns have constant defaults (no rewrite), its indexes are built CONCURRENTLY
-- (writes go on), and its CHECK is added NOT VALID then validated under a lock that lets
-- reads and writes through. Every statement is safe to run again after an interruption.
CREATE TABLE IF NOT EXISTS "channel_settings" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"scope_id" text NOT NULL,
	"persona_name" text,
	"persona_instructions" text,
	"humanizer_degree" smallint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_settings_humanizer_check" CHECK ("channel_settings"."humanizer_degree" is null or "channel_settings"."humanizer_degree" between 0 and 3),
	CONSTRAINT "channel_settings_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "channel_summaries" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"scope_id" text NOT NULL,
	"content" text NOT NULL,
	"covered_until" timestamp with time zone NOT NULL,
	"covered_turns" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_summaries_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD COLUMN IF NOT EXISTS "importance" real DEFAULT 0.5 NOT NULL;
--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD COLUMN IF NOT EXISTS "pinned_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD COLUMN IF NOT EXISTS "pinned_by" text;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "channel_settings_scope_idx" ON "channel_settings" USING btree ("scope_id");
--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "conversation_turns_pinned_idx";
--> statement-breakpoint
CREATE INDEX CONCURRENTLY "conversation_turns_pinned_idx" ON "conversation_turns" USING btree ("channel_id","created_at" DESC NULLS LAST) WHERE "conversation_turns"."pinned_at" is not null;
--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "conversation_turns_important_idx";
--> statement-breakpoint
CREATE INDEX CONCURRENTLY "conversation_turns_important_idx" ON "conversation_turns" USING btree ("channel_id","created_at" DESC NULLS LAST) WHERE "conversation_turns"."importance" >= 0.8;
--> statement-breakpoint
DO $$ BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'conversation_turns_importance_check') THEN
		ALTER TABLE "conversation_turns" ADD CONSTRAINT "conversation_turns_importance_check" CHECK ("conversation_turns"."importance" between 0 and 1) NOT VALID;
	END IF;
END $$;
--> statement-breakpoint
ALTER TABLE "conversation_turns" VALIDATE CONSTRAINT "conversation_turns_importance_check";