-- The member message a character's turn answered (src/bot/cast/character-messages.ts): a webhook
-- message carries no reply reference, so recovery finds a character's reply by it after a
-- restart. Nullable, no default: a catalog change only, no rewrite of character_messages.
ALTER TABLE "character_messages" ADD COLUMN IF NOT EXISTS "trigger_message_id" text;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "character_messages_trigger_idx" ON "character_messages" USING btree ("trigger_message_id");
