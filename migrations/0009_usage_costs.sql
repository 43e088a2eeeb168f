CREATE TABLE "member_daily_usage" (
	"scope_id" text NOT NULL,
	"day" date NOT NULL,
	"member_id" text NOT NULL,
	"model" text NOT NULL,
	"turns" integer DEFAULT 0 NOT NULL,
	"input_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_input_tokens" bigint DEFAULT 0 NOT NULL,
	"output_tokens" bigint DEFAULT 0 NOT NULL,
	"cost" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "member_daily_usage_scope_id_day_member_id_model_pk" PRIMARY KEY("scope_id","day","member_id","model")
);
--> statement-breakpoint
ALTER TABLE "scope_daily_usage" ADD COLUMN "cost" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "scope_settings" ADD COLUMN "daily_cost_budget" bigint;--> statement-breakpoint
ALTER TABLE "scope_settings" ADD COLUMN "member_daily_token_budget" integer;--> statement-breakpoint
ALTER TABLE "scope_settings" ADD COLUMN "member_daily_cost_budget" bigint;--> statement-breakpoint
ALTER TABLE "member_daily_usage" ADD CONSTRAINT "member_daily_usage_scope_id_scopes_id_fk" FOREIGN KEY ("scope_id") REFERENCES "public"."scopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "member_daily_usage_member_idx" ON "member_daily_usage" USING btree ("scope_id","member_id","day");