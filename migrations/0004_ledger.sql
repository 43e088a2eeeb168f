ALTER TABLE "message_claims" ADD COLUMN "channel_id" text;--> statement-breakpoint
ALTER TABLE "message_claims" ADD COLUMN "settled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "message_claims_unsettled_idx" ON "message_claims" USING btree ("claimed_at") WHERE "message_claims"."settled_at" is null and "message_claims"."channel_id" is not null;