CREATE TABLE "conversation_turns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"scope_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"role" text NOT NULL,
	"author_id" text NOT NULL,
	"author_name" text,
	"trigger_message_id" text,
	"discord_message_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"status" text NOT NULL,
	"metrics" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "conversation_turns_role_check" CHECK ("conversation_turns"."role" in ('user', 'assistant')),
	CONSTRAINT "conversation_turns_status_check" CHECK ("conversation_turns"."status" in ('streaming', 'complete', 'stopped', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "memories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"scope_id" text NOT NULL,
	"kind" text NOT NULL,
	"owner_id" text,
	"author_id" text NOT NULL,
	"content" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memories_owner_check" CHECK (("memories"."kind" = 'server' and "memories"."owner_id" is null) or ("memories"."kind" = 'user' and "memories"."owner_id" is not null))
);
--> statement-breakpoint
CREATE TABLE "reset_markers" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"scope_id" text NOT NULL,
	"reset_at" timestamp with time zone DEFAULT now() NOT NULL,
	"reset_by" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scope_settings" (
	"scope_id" text PRIMARY KEY NOT NULL,
	"provider" text,
	"model" text,
	"api_key_ciphertext" text,
	"persona_name" text,
	"persona_instructions" text,
	"humanizer_degree" smallint DEFAULT 1 NOT NULL,
	"temperature" real,
	"language" text,
	"timezone" text,
	"trigger_words" text[] DEFAULT '{}'::text[] NOT NULL,
	"auto_reply_channel_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"auto_reply_every_n" integer,
	"delivery_mode" text DEFAULT 'messages' NOT NULL,
	"queue_policy" text DEFAULT 'coalesce' NOT NULL,
	"queue_depth" smallint DEFAULT 3 NOT NULL,
	"member_turns_per_minute" integer DEFAULT 10 NOT NULL,
	"daily_token_budget" integer,
	"feature_flags" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scope_settings_humanizer_check" CHECK ("scope_settings"."humanizer_degree" between 0 and 3),
	CONSTRAINT "scope_settings_temperature_check" CHECK ("scope_settings"."temperature" is null or "scope_settings"."temperature" between 0 and 2),
	CONSTRAINT "scope_settings_delivery_check" CHECK ("scope_settings"."delivery_mode" in ('messages', 'edit')),
	CONSTRAINT "scope_settings_queue_check" CHECK ("scope_settings"."queue_policy" in ('coalesce', 'queue')),
	CONSTRAINT "scope_settings_queue_depth_check" CHECK ("scope_settings"."queue_depth" between 1 and 20)
);
--> statement-breakpoint
CREATE TABLE "scopes" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scopes_kind_check" CHECK ("scopes"."kind" in ('guild', 'dm'))
);
--> statement-breakpoint
CREATE TABLE "tool_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"turn_id" uuid NOT NULL,
	"scope_id" text NOT NULL,
	"tool_name" text NOT NULL,
	"status" text NOT NULL,
	"duration_ms" integer NOT NULL,
	"argument_summary" text DEFAULT '' NOT NULL,
	"result_summary" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tool_calls_status_check" CHECK ("tool_calls"."status" in ('ok', 'error', 'timeout', 'aborted'))
);
--> statement-breakpoint
ALTER TABLE "conversation_turns" ADD CONSTRAINT "conversation_turns_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memories" ADD CONSTRAINT "memories_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reset_markers" ADD CONSTRAINT "reset_markers_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scope_settings" ADD CONSTRAINT "scope_settings_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tool_calls" ADD CONSTRAINT "tool_calls_turn_id_conversation_turns_id_fk" FOREIGN KEY ("turn_id") REFERENCES "public"."conversation_turns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversation_turns_channel_recent_idx" ON "conversation_turns" USING btree ("channel_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "conversation_turns_streaming_idx" ON "conversation_turns" USING btree ("status") WHERE "conversation_turns"."status" = 'streaming';--> statement-breakpoint
CREATE INDEX "conversation_turns_trigger_idx" ON "conversation_turns" USING btree ("trigger_message_id");--> statement-breakpoint
CREATE INDEX "memories_scope_owner_idx" ON "memories" USING btree ("scope_id","kind","owner_id");--> statement-breakpoint
CREATE INDEX "tool_calls_turn_idx" ON "tool_calls" USING btree ("turn_id");