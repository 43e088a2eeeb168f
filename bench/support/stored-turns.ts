/**
 * Seeds a conversation history the size a busy server accumulates: `turnsPerChannel` rows per
 * channel in `conversation_turns`, alternating member and bot, one minute apart and all older
 * than the bench's triggers. One set-based INSERT per channel, so 100k rows take seconds.
 * Each channel also gets the rolling summary a channel that grew this long has: it covers all
 * but the newest SUMMARY_KEEPS_RECENT turns (the summarizer's cadence), so a turn in the bench
 * costs what it costs in a steady channel, not a catch-up summary call of an unsummarized one.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/database.ts';
import { DEFAULT_SUMMARY_CADENCE } from '../../src/bot/context/summary/rolling-summarizer.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';

const SUMMARY_KEEPS_RECENT = DEFAULT_SUMMARY_CADENCE.keepRecent;
const SUMMARY = 'Members chatted about plans, food and the weather; nothing was decided.';

export interface StoredTurnsPlan {
  guildId: string;
  botUserId: string;
  /** Each channel with the one member who talks in it. */
  channels: ReadonlyArray<{ channelId: string; memberId: string }>;
  turnsPerChannel: number;
}

/** A chat-sized line (about 200 characters), numbered so no two rows are identical. */
const CONTENT = sql`'Turn ' || n || ': a stored line of an old conversation about plans, food and ' ||
  'the weather, long enough to look like a real chat message and to give the history query ' ||
  'some bytes to read back from the table.'`;

export async function seedStoredTurns(db: Database, plan: StoredTurnsPlan): Promise<number> {
  await ensureScope(db, plan.guildId, 'guild');
  for (const { channelId, memberId } of plan.channels) {
    await db.execute(sql`
      insert into conversation_turns (id, scope_id, channel_id, role, author_id, author_name,
        trigger_message_id, discord_message_ids, content, status, created_at, completed_at)
      select gen_random_uuid(), ${plan.guildId}, ${channelId},
        case when n % 2 = 0 then 'user' else 'assistant' end,
        case when n % 2 = 0 then ${memberId} else ${plan.botUserId} end,
        case when n % 2 = 0 then 'member' else 'Tomodachi' end,
        'seed-' || ${channelId} || '-' || (n - n % 2),
        array['seed-' || ${channelId} || '-' || n],
        ${CONTENT}, 'complete',
        now() - make_interval(mins => ${plan.turnsPerChannel} - n + 1),
        now() - make_interval(mins => ${plan.turnsPerChannel} - n + 1)
      from generate_series(1, ${plan.turnsPerChannel}::int) as n`);
    const covered = Math.max(0, plan.turnsPerChannel - SUMMARY_KEEPS_RECENT);
    if (covered > 0)
      await db.execute(sql`
        insert into channel_summaries (channel_id, scope_id, content, covered_until, covered_turns)
        values (${channelId}, ${plan.guildId}, ${SUMMARY},
          now() - make_interval(mins => ${plan.turnsPerChannel - covered + 1}), ${covered})`);
  }
  const counted: unknown = await db.execute(
    sql`select count(*)::int as count from conversation_turns`,
  );
  const [row] = (counted as { rows: Array<{ count: number }> }).rows;
  // Fresh statistics, as autovacuum would have gathered on a server that grew this slowly.
  await db.execute(sql`analyze conversation_turns`);
  return row?.count ?? 0;
}
