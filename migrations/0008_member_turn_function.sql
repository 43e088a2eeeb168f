-- The member rate limit's decision in one statement (src/db/member-turn-repository.ts): the
-- same steps the bot ran in a transaction of five round trips, now run by the server. A
-- VOLATILE function takes a fresh snapshot for each query inside it, so the count after the
-- advisory lock sees every turn of the member committed while this call waited for the lock.
-- The lock is the one the transaction took (class "mbrt", hashtext('<scope>:<member>')): a
-- process still running the old code serializes with this one.
CREATE FUNCTION "take_member_turn"(
	"requested_key" text,
	"requested_scope_id" text,
	"requested_member_id" text,
	"requested_at" timestamp with time zone,
	"per_window" integer,
	"window_ms" integer
) RETURNS TABLE ("allowed" boolean, "retry_after_ms" integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
	window_start timestamp with time zone := requested_at - window_ms * interval '1 millisecond';
	decided boolean;
	earlier bigint;
	oldest timestamp with time zone;
BEGIN
	PERFORM pg_advisory_xact_lock(1835168372, hashtext(requested_scope_id || ':' || requested_member_id));
	INSERT INTO "member_turns" ("key", "scope_id", "member_id", "taken_at")
		VALUES (requested_key, requested_scope_id, requested_member_id, requested_at)
		ON CONFLICT DO NOTHING;
	IF NOT FOUND THEN
		-- Decided by the first process to ask: every other one reads that verdict.
		SELECT "counted" INTO decided FROM "member_turns" WHERE "key" = requested_key;
		decided := coalesce(decided, false);
	ELSE
		SELECT count(*) INTO earlier FROM "member_turns"
			WHERE "scope_id" = requested_scope_id AND "member_id" = requested_member_id
				AND "counted" AND "taken_at" > window_start AND "key" <> requested_key;
		decided := earlier < per_window;
		IF NOT decided THEN
			-- Refused: stored, so every process reads the same verdict, but not counted.
			UPDATE "member_turns" SET "counted" = false WHERE "key" = requested_key;
		END IF;
	END IF;
	IF decided THEN
		RETURN QUERY SELECT true, 0;
		RETURN;
	END IF;
	-- Until the oldest of the `per_window` newest counted turns leaves the window.
	SELECT "taken_at" INTO oldest FROM "member_turns"
		WHERE "scope_id" = requested_scope_id AND "member_id" = requested_member_id
			AND "counted" AND "taken_at" > window_start
		ORDER BY "taken_at" DESC, "key" ASC
		LIMIT 1 OFFSET greatest(0, per_window - 1);
	RETURN QUERY SELECT false, CASE WHEN oldest IS NULL THEN 0 ELSE
		greatest(0, round(extract(epoch FROM oldest - requested_at) * 1000) + window_ms)::integer END;
END;
$$;
