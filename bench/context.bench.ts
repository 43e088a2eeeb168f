/**
 * Context assembly (stored turns, pins, important turns, summary, selection under the token
 * budget) for a channel with 100k stored turns — the part of a turn before its first REST
 * write that grows with the stored history. Target: p50 ≤ 10 ms (the overhead target of the
 * bot bench).
 */
import { sql } from 'drizzle-orm';
import { silentLogger } from '../src/core/logger.ts';
import { defaultScopeSettings } from '../src/core/settings.ts';
import { openDatabase } from '../src/db/database.ts';
import { ChannelHistory } from '../src/bot/context/channel-history.ts';
import { buildRequest, prepareTurn } from '../src/bot/context/turn-context.ts';
import { ModelCatalog } from '../src/providers/model-catalog.ts';
import type { ResolvedModel } from '../src/providers/provider-factory.ts';
import type { BenchRow } from './bench-kit.ts';
import { percentile } from './bench-kit.ts';
import { seedStoredTurns } from './support/stored-turns.ts';

const STORED_TURNS = 100_000;
const RUNS = 60;
const TARGET_MS = 10;
const GUILD = '900000000000000001';
const CHANNEL = '900000000000000002';
const MEMBER = '900000000000000003';
const BOT = '900000000000000004';

export async function rows(): Promise<BenchRow[]> {
  const handle = await openDatabase({ kind: 'pglite', dataDir: undefined, logger: silentLogger });
  try {
    await handle.migrate();
    const { db } = handle;
    await seedStoredTurns(db, {
      guildId: GUILD,
      botUserId: BOT,
      channels: [{ channelId: CHANNEL, memberId: MEMBER }],
      turnsPerChannel: STORED_TURNS,
    });
    // Every 50th member turn important, the first three pinned: what the selection reads.
    await db.execute(sql`update conversation_turns set importance = 0.9
      where channel_id = ${CHANNEL} and role = 'user' and right(content, 1) = '.'
      and (split_part(split_part(content, ':', 1), ' ', 2))::int % 50 = 0`);
    await db.execute(sql`update conversation_turns set pinned_at = now(), pinned_by = 'auto'
      where id in (select id from conversation_turns where channel_id = ${CHANNEL}
      and role = 'user' order by created_at limit 3)`);
    await db.execute(sql`analyze conversation_turns`);
    const info = new ModelCatalog().lookup('openai', 'gpt-5.4-mini');
    const model = { info, modelId: info.id, provider: 'openai' } as unknown as ResolvedModel;
    // An empty channel window: everything comes from the database (the worst case).
    const history = new ChannelHistory({
      perChannel: 50,
      maxChannels: 10,
      fetchRecent: () => Promise.resolve([]),
    });
    const settings = defaultScopeSettings(GUILD);
    const samples: number[] = [];
    let included = 0;
    for (let run = 0; run < RUNS + 5; run += 1) {
      const started = process.hrtime.bigint();
      const prepared = await prepareTurn({
        db,
        history,
        settings,
        model,
        messages: [
          {
            id: String(999000000000000000n + BigInt(run)),
            channelId: CHANNEL,
            guildId: GUILD,
            authorId: MEMBER,
            authorName: 'member',
            authorIsBot: false,
            content: 'what did we decide?',
            createdAt: Date.now(),
            isDM: false,
            mentionsBot: true,
            repliesToBot: false,
            replyToMessageId: undefined,
            attachments: [],
          },
        ],
        botUserId: BOT,
        place: { kind: 'guild', guildName: 'bench', channelName: 'general' } as never,
        now: new Date(),
        download: () => Promise.reject(new Error('no downloads')),
        logger: silentLogger,
        signal: new AbortController().signal,
      });
      const built = await buildRequest({
        prepared,
        model,
        toolSpecs: [],
        dropOldest: 0,
      });
      included = built.includedHistory;
      if (run >= 5) samples.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    const p50 = percentile(samples, 50);
    return [
      {
        name: `context: assembly with ${STORED_TURNS / 1000}k stored turns p50 (PGlite, n=${RUNS}, ${included} entries chosen)`,
        value: p50,
        unit: 'ms',
        target: `≤ ${TARGET_MS}`,
        pass: p50 <= TARGET_MS,
      },
      {
        name: `context: assembly with ${STORED_TURNS / 1000}k stored turns p99`,
        value: percentile(samples, 99),
        unit: 'ms',
      },
    ];
  } finally {
    await handle.close();
  }
}
