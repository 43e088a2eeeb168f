/**
 * Reminders are claimed row by row, so FOUR bot processes on one PostgreSQL database
 * deliver each due reminder exactly once. The reminders fall due together a few seconds after
 * all four have started, so every process wakes for them at the same moment and competes.
 * Needs TEST_DATABASE_URL; skipped (and says why) without it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createReminder } from '../../src/db/reminder-repository.ts';
import { reminders } from '../../src/db/schema.ts';
import { testServerUrl } from '../support/bot-database.ts';
import { startBot, type BotProcess } from '../support/scenario-runner.ts';
import { eventually } from '../tools/support/eventually.ts';
import {
  botMessagesIn,
  startHarness,
  TEST_API_KEY,
  TEST_MODEL,
  type BotHarness,
} from './support/bot-harness.ts';

const SKIPPED =
  testServerUrl() === undefined
    ? ' (skipped: several processes share a database only on PostgreSQL; set TEST_DATABASE_URL)'
    : '';
const PROCESSES = 4;
const CHANNELS = 8;
const REMINDERS = 80;
/** Long enough for all four processes to start on a busy 2-core machine. */
const DUE_AFTER_MS = 30_000;

function setup(discord: BotHarness['discord']) {
  const guild = discord.createGuild({ name: 'Reminders' });
  const member = discord.createUser({ username: 'alice' });
  discord.addMember({ guildId: guild.id, userId: member.id });
  const channels = Array.from({ length: CHANNELS }, (_unused, index) =>
    discord.createChannel({ guildId: guild.id, name: `room-${index}` }),
  );
  const asks = channels.map((channel) =>
    discord.postMessage({ authorId: member.id, channelId: channel.id, content: 'remind me' }),
  );
  return { guild, member, channels, asks };
}

describe.skipIf(SKIPPED !== '')(`reminders with four bot processes${SKIPPED}`, () => {
  const disposals: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const dispose of disposals.splice(0).reverse()) await dispose().catch(() => undefined);
  });

  it('delivers each of 80 reminders due at once exactly once, whichever process claims it', async () => {
    const dueAt = new Date(Date.now() + DUE_AFTER_MS);
    const harness = await startHarness({
      setup,
      databaseKind: 'postgres',
      seed: async (db, world) => {
        for (let index = 0; index < REMINDERS; index += 1) {
          const channel = world.channels[index % CHANNELS];
          const ask = world.asks[index % CHANNELS];
          await createReminder(db, {
            scope: { id: world.guild.id, kind: 'guild' },
            channelId: channel?.id ?? '',
            userId: world.member.id,
            messageId: ask?.id ?? '',
            content: `reminder number ${index}`,
            dueAt,
            limit: REMINDERS,
          });
        }
      },
    });
    disposals.push(() => harness.dispose());
    const { discord, llm, database, world } = harness;
    const others: BotProcess[] = Array.from({ length: PROCESSES - 1 }, () =>
      startBot({
        discord,
        env: {
          ...database.environment,
          OPENAI_BASE_URL: llm.openAIBaseUrl,
          OPENAI_API_KEY: TEST_API_KEY,
          DEFAULT_PROVIDER: 'openai',
          DEFAULT_MODEL: TEST_MODEL,
        },
      }),
    );
    for (const other of others) disposals.push(() => other.dispose());
    await Promise.all(others.map((other) => other.waitUntilConnected({ timeoutMs: 120_000 })));
    const allStartedBeforeDue = Date.now() < dueAt.getTime();

    const deliveries = () =>
      world.channels.flatMap((channel) =>
        botMessagesIn(discord, channel.id).filter((message) => message.content.startsWith('⏰')),
      );
    await eventually(() => deliveries().length >= REMINDERS, {
      timeoutMs: DUE_AFTER_MS + 120_000,
      description: 'every reminder delivered',
    });
    // Every row settled: no process holds one any more, so nothing else can be sent.
    const handle = await database.open();
    try {
      await eventually(
        async () => {
          const rows = await handle.db.select({ status: reminders.status }).from(reminders);
          return rows.length === REMINDERS && rows.every((row) => row.status === 'delivered');
        },
        { timeoutMs: 60_000, description: 'every reminder row delivered' },
      );
    } finally {
      await handle.close();
    }

    const texts = deliveries().map((message) => message.content);
    const perReminder = new Map<string, number>();
    for (const text of texts) {
      const number = /reminder number (\d+)$/.exec(text)?.[1] ?? text;
      perReminder.set(number, (perReminder.get(number) ?? 0) + 1);
    }
    const deliveredBy = [harness.bot, ...others].map(
      (process) =>
        process.logs().filter((line) => line.json?.['msg'] === 'reminder delivered').length,
    );
    console.info(
      `${REMINDERS} reminders, ${PROCESSES} processes: ${texts.length} sent, ` +
        `delivered per process ${deliveredBy.join('/')}` +
        (allStartedBeforeDue ? '' : ' (not all processes had started when they fell due)'),
    );
    expect(perReminder.size).toBe(REMINDERS);
    expect([...perReminder.values()].every((count) => count === 1)).toBe(true);
    expect(texts).toHaveLength(REMINDERS);
    expect(deliveredBy.reduce((sum, count) => sum + count, 0)).toBe(REMINDERS);
  });
});
