CREATE TABLE "message_claims" (
	"key" text PRIMARY KEY NOT NULL,
	"instance_id" text NOT NULL,
	"claimed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scope_daily_usage" (
	"scope_id" text NOT NULL,
	"day" date NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "scope_daily_usage_scope_id_day_pk" PRIMARY KEY("scope_id","day")
);
--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD COLUMN "instance_id" text;--> statement-breakpoint
ALTER TABLE "scope_daily_usage" ADD CONSTRAINT "scope_daily_usage_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_claims_claimed_at_idx" ON "message_claims" USING btree ("claimed_at");