CREATE TABLE "character_daily_usage" (
	"scope_id" text NOT NULL,
	"day" date NOT NULL,
	"character_id" uuid NOT NULL,
	"turns" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "character_daily_usage_scope_id_day_character_id_pk" PRIMARY KEY("scope_id","day","character_id")
);
--> statement-breakpoint
CREATE TABLE "character_messages" (
	"message_id" text PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"character_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "characters" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"scope_id" text NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"avatar_url" text,
	"persona" text NOT NULL,
	"greeting" text,
	"trigger_words" text[] DEFAULT '{}'::text[] NOT NULL,
	"provider" text,
	"model" text,
	"temperature" real,
	"humanizer_degree" smallint,
	"language" text,
	"card" jsonb,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "characters_humanizer_check" CHECK ("characters"."humanizer_degree" is null or "characters"."humanizer_degree" between 0 and 3),
	CONSTRAINT "characters_temperature_check" CHECK ("characters"."temperature" is null or "characters"."temperature" between 0 and 2)
);
--> statement-breakpoint
CREATE TABLE "scene_characters" (
	"channel_id" text NOT NULL,
	"character_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "scene_characters_channel_id_character_id_pk" PRIMARY KEY("channel_id","character_id")
);
--> statement-breakpoint
ALTER TABLE "character_daily_usage" ADD CONSTRAINT "character_daily_usage_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "character_daily_usage" ADD CONSTRAINT "character_daily_usage_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "character_messages" ADD CONSTRAINT "character_messages_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "characters" ADD CONSTRAINT "characters_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scene_characters" ADD CONSTRAINT "scene_characters_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "character_daily_usage_character_idx" ON "character_daily_usage" USING btree ("character_id");--> statement-breakpoint
CREATE INDEX "character_messages_character_idx" ON "character_messages" USING btree ("character_id");--> statement-breakpoint
CREATE UNIQUE INDEX "characters_scope_name_idx" ON "characters" USING btree ("scope_id","name_key");--> statement-breakpoint
CREATE INDEX "scene_characters_character_idx" ON "scene_characters" USING btree ("character_id");