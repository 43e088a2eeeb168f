CREATE TABLE "channel_settings" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"scope_id" text NOT NULL,
	"persona_name" text,
	"persona_instructions" text,
	"humanizer_degree" smallint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_settings_humanizer_check" CHECK ("channel_settings"."humanizer_degree" is null or "channel_settings"."humanizer_degree" between 0 and 3)
);
--> statement-breakpoint
CREATE TABLE "channel_summaries" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"scope_id" text NOT NULL,
	"content" text NOT NULL,
	"covered_until" timestamp with time zone NOT NULL,
	"covered_turns" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD COLUMN "importance" real DEFAULT 0.5 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD COLUMN "pinned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD COLUMN "pinned_by" text;--> statement-breakpoint
ALTER TABLE "channel_settings" ADD CONSTRAINT "channel_settings_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_summaries" ADD CONSTRAINT "channel_summaries_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_settings_scope_idx" ON "channel_settings" USING btree ("scope_id");--> statement-breakpoint
CREATE INDEX "conversation_turns_pinned_idx" ON "conversation_turns" USING btree ("channel_id","created_at" DESC NULLS LAST) WHERE "conversation_turns"."pinned_at" is not null;--> statement-breakpoint
CREATE INDEX "conversation_turns_important_idx" ON "conversation_turns" USING btree ("channel_id","created_at" DESC NULLS LAST) WHERE "conversation_turns"."importance" >= 0.8;--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD CONSTRAINT "conversation_turns_importance_check" CHECK ("conversation_turns"."importance" between 0 and 1);