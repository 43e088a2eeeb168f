/** Importance and pins of stored turns, and the reads context assembly makes. */
import { randomUUID } from 'node:crypto';
import { timeOrderedId } from '../../src/core/time-ordered-id.ts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contextTurnReads,
  contextTurnsSinceReset,
  pinnedTurns,
  setTurnPinned,
  unpinTurn,
} from '../../src/db/context-turn-repository.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import {
  finishAssistantTurn,
  recordUserTurn,
  reviseUserMessage,
  setResetMarker,
  startAssistantTurn,
} from '../../src/db/turn-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '133456789012345678';
const AUTHOR = '433456789012345678';
let nextMessage = 900000000000000000n;
const messageId = () => String((nextMessage += 1n));

describe.each(testBackends())('context turns on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  const say = async (channelId: string, content: string) => {
    const id = messageId();
    await recordUserTurn(database.db, {
      // As the bot makes them: turns stored in one millisecond keep their order.
      id: timeOrderedId(),
      scopeId: SCOPE,
      channelId,
      authorId: AUTHOR,
      authorName: 'ann',
      messageId: id,
      content,
    });
    return id;
  };

  it('tells a reply whose end was never written (its process died) from one that ended', async () => {
    const channelId = '743456789012345678';
    const start = (id: string, trigger: string) =>
      startAssistantTurn(database.db, {
        id,
        scopeId: SCOPE,
        channelId,
        authorId: '633456789012345678',
        authorName: 'bot',
        triggerMessageId: trigger,
      });
    const [ended, abandoned] = [randomUUID(), randomUUID()];
    await start(ended, messageId());
    await finishAssistantTurn(database.db, ended, {
      content: '',
      discordMessageIds: [],
      status: 'failed',
      metrics: { durationMs: 1 },
    });
    await start(abandoned, messageId());
    const limits = { recent: 10, important: 0, pinned: 0 };
    const unfinished = async () =>
      Object.fromEntries(
        (await contextTurnsSinceReset(database.db, channelId, limits)).map((turn) => [
          turn.id,
          turn.unfinished,
        ]),
      );
    expect(await unfinished()).toEqual({ [ended]: false, [abandoned]: true });
    // Judged failed once its process is gone: still unfinished, its end was never written.
    await database.db.execute(
      sql`update conversation_turns set status = 'failed', completed_at = now() where id = ${abandoned}`,
    );
    expect(await unfinished()).toEqual({ [ended]: false, [abandoned]: true });
  });

  it('stores the importance of every turn and re-scores an edited message', async () => {
    const channel = messageId();
    const constraint = await say(channel, 'Always answer in French.');
    await say(channel, 'thanks!');
    const reply = randomUUID();
    await startAssistantTurn(database.db, {
      id: reply,
      scopeId: SCOPE,
      channelId: channel,
      authorId: '1',
      authorName: 'bot',
      triggerMessageId: constraint,
    });
    await finishAssistantTurn(database.db, reply, {
      content: 'Which city are you in?',
      discordMessageIds: [messageId()],
      status: 'complete',
      metrics: {},
    });
    const turns = await contextTurnsSinceReset(database.db, channel, {
      recent: 10,
      important: 10,
      pinned: 10,
    });
    expect(turns.map((turn) => [turn.content, Math.round(turn.importance * 100) / 100])).toEqual([
      ['Always answer in French.', 0.9],
      ['thanks!', 0.3],
      ['Which city are you in?', 0.85],
    ]);
    await reviseUserMessage(database.db, constraint, 'hi');
    const [revised] = await contextTurnsSinceReset(database.db, channel, {
      recent: 10,
      important: 0,
      pinned: 0,
    });
    expect(revised?.content).toBe('hi');
    expect(revised?.importance).toBeCloseTo(0.3, 5);
  });

  it('pins the first three user turns after a reset, and again after the next reset', async () => {
    const channel = messageId();
    for (const text of ['one', 'two', 'three', 'four']) await say(channel, text);
    expect((await pinnedTurns(database.db, channel)).map((turn) => turn.content)).toEqual([
      'one',
      'two',
      'three',
    ]);
    await setResetMarker(database.db, { channelId: channel, scopeId: SCOPE, resetBy: AUTHOR });
    expect(await pinnedTurns(database.db, channel)).toEqual([]);
    for (const text of ['five', 'six', 'seven', 'eight']) await say(channel, text);
    const pins = await pinnedTurns(database.db, channel);
    expect(pins.map((turn) => [turn.content, turn.pinnedBy])).toEqual([
      ['five', 'auto'],
      ['six', 'auto'],
      ['seven', 'auto'],
    ]);
  });

  it('pins and unpins a turn by its Discord message, only in its own channel', async () => {
    const channel = messageId();
    for (const text of ['a', 'b', 'c']) await say(channel, text);
    const later = await say(channel, 'the plan is on the wiki');
    expect(
      await setTurnPinned(database.db, {
        channelId: messageId(),
        messageId: later,
        pinnedBy: AUTHOR,
      }),
    ).toBe(false);
    expect(
      await setTurnPinned(database.db, { channelId: channel, messageId: later, pinnedBy: AUTHOR }),
    ).toBe(true);
    const pinned = (await pinnedTurns(database.db, channel)).at(-1);
    expect(pinned).toMatchObject({ content: 'the plan is on the wiki', pinnedBy: AUTHOR });
    expect(await unpinTurn(database.db, { channelId: channel, turnId: pinned?.id ?? '' })).toBe(
      true,
    );
    expect(await unpinTurn(database.db, { channelId: channel, turnId: pinned?.id ?? '' })).toBe(
      false,
    );
    expect(await pinnedTurns(database.db, channel)).toHaveLength(3);
  });

  it('reads the newest, the important and the pinned turns, deduplicated, oldest first', async () => {
    const channel = messageId();
    await say(channel, 'pinned automatically');
    await say(channel, 'My dog is called Mochi.');
    for (let index = 0; index < 30; index += 1) await say(channel, `small talk ${index}`);
    const turns = await contextTurnsSinceReset(database.db, channel, {
      recent: 5,
      important: 5,
      pinned: 5,
    });
    expect(turns.map((turn) => turn.content)).toEqual([
      'pinned automatically',
      'My dog is called Mochi.',
      'small talk 0',
      'small talk 25',
      'small talk 26',
      'small talk 27',
      'small talk 28',
      'small talk 29',
    ]);
    expect(turns.filter((turn) => turn.pinned)).toHaveLength(3);
  });

  it('walks an index for each read and stops at its limit, never sorting the whole channel', async () => {
    const channel = messageId();
    // A long channel (set-based), every 50th turn important, three pinned: what the bench reads.
    await database.rawQuery(sql`
      insert into conversation_turns (id, scope_id, channel_id, role, author_id, content, status,
        created_at, importance, pinned_at)
      select gen_random_uuid(), ${SCOPE}, ${channel}, 'user', ${AUTHOR}, 'turn ' || n, 'complete',
        now() - make_interval(mins => 20000 - n), case when n % 50 = 0 then 0.9 else 0.5 end,
        case when n <= 3 then now() end
      from generate_series(1, 20000) as n`);
    await database.rawQuery(sql`analyze conversation_turns`);
    const reads = contextTurnReads(database.db, channel, {
      recent: 150,
      important: 150,
      pinned: 30,
    });
    const indexes = [
      'conversation_turns_channel_recent_idx',
      'conversation_turns_important_idx',
      'conversation_turns_pinned_idx',
    ];
    for (const [index, read] of reads.entries()) {
      const plan = (await database.rawQuery(sql`explain ${read}`))
        .map((row) => String(Object.values(row)[0]))
        .join('\n');
      expect(plan).toContain(`Index Scan using ${indexes[index]}`);
      expect(plan).not.toContain('Seq Scan');
      // Only an incremental sort (ties of created_at by id) over rows the index yields in order;
      // the few pinned rows the pinned index yields may be sorted whole.
      if (index < 2) expect(plan).not.toMatch(/(^|->)\s*Sort\s+\(/m);
    }
  });
});
