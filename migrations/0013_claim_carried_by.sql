-- The message whose reply carried this one (src/db/claim-repository.ts, carryClaims). Nullable,
-- no default: a catalog change only, no rewrite of message_claims.
ALTER TABLE "message_claims" ADD COLUMN IF NOT EXISTS "carried_by" text;
