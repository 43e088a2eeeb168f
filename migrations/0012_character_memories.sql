-- migrate: no-transaction
-- Runs outside a transaction (src/db/migrator.ts), statement by statement, so that neither
-- conversation_turns nor memories is locked for longer than a catalog change: the new columns
-- are nullable without a default (no rewrite, no scan), the index is built CONCURRENTLY (writes
-- go on), and the foreign key and the CHECK are added NOT VALID, then validated under a lock
-- that lets reads and writes through. Every statement is safe to run again after an interruption.
ALTER TABLE "conversation_turns" ADD COLUMN IF NOT EXISTS "character_id" uuid;
--> statement-breakpoint
ALTER TABLE "memories" ADD COLUMN IF NOT EXISTS "character_id" uuid;
--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "memories_character_idx";
--> statement-breakpoint
CREATE INDEX CONCURRENTLY "memories_character_idx" ON "memories" USING btree ("character_id") WHERE "memories"."character_id" is not null;
--> statement-breakpoint
DO $$ BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'memories_character_id_characters_id_fk') THEN
		ALTER TABLE "memories" ADD CONSTRAINT "memories_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action NOT VALID;
	END IF;
END $$;
--> statement-breakpoint
ALTER TABLE "memories" VALIDATE CONSTRAINT "memories_character_id_characters_id_fk";
--> statement-breakpoint
DO $$ BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'memories_character_check') THEN
		ALTER TABLE "memories" ADD CONSTRAINT "memories_character_check" CHECK ("memories"."character_id" is null or "memories"."kind" = 'user') NOT VALID;
	END IF;
END $$;
--> statement-breakpoint
ALTER TABLE "memories" VALIDATE CONSTRAINT "memories_character_check";
