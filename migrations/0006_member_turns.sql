CREATE TABLE "member_turns" (
	"key" text PRIMARY KEY NOT NULL,
	"scope_id" text NOT NULL,
	"member_id" text NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"counted" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE INDEX "member_turns_member_idx" ON "member_turns" USING btree ("scope_id","member_id","taken_at");