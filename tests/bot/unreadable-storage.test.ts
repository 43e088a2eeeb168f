/**
 * A step of a member's way that the database refuses for good (not an outage to wait out: a
 * table the server says does not exist) never leaves the member with silence, through the real
 * bot process, discord.js and the loopback Discord on PostgreSQL (where a test can change the
 * schema under a running bot):
 * - a mention whose channel settings cannot be read after its claim is told, and its claim
 *   settled, so the next start does not answer it after the notice;
 * - a Retry press whose admission (the member rate limit) cannot be read is told to its presser,
 *   and a press once storage is back is answered.
 */
import { sql } from 'drizzle-orm';
import type { APIMessage } from 'discord-api-types/v10';
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translate } from '../../src/bot/i18n/messages.ts';
import type { Database } from '../../src/db/database.ts';
import { e2eDatabaseKind } from '../support/bot-database.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

const STORAGE_TROUBLE = translate('en', 'note.storage_trouble');

describe.skipIf(e2eDatabaseKind() !== 'postgres')(
  'storage that refuses a step for good',
  { timeout: 240_000 },
  () => {
    let harness: BotHarness<ReturnType<typeof createWorld>>;
    beforeAll(async () => {
      harness = await startHarness({ setup: (discord) => createWorld(discord) });
    }, 120_000);
    afterAll(() => harness.dispose());

    function channel(name: string): string {
      const { discord, world } = harness;
      return discord.createChannel({ guildId: world.guild.id, name }).id;
    }

    /** Runs `statement` on the bot's own database, beside the running bot. */
    function onBotDatabase(statement: (db: Database) => Promise<unknown>): Promise<void> {
      return harness.withDatabase(async (db) => {
        await statement(db);
      });
    }

    it('a mention whose channel settings cannot be read is told, and not answered again after a restart', async () => {
      const { discord, llm, bot, world } = harness;
      const place = channel('no-channel-settings');
      const callsBefore = llm.requests.length;
      await onBotDatabase((db) =>
        db.execute(sql`alter table channel_settings rename to channel_settings_away`),
      );
      let trigger: { id: string };
      try {
        const told = discord.waits.message({ channelId: place, authorId: discord.botUserId });
        trigger = discord.postMessage({
          authorId: world.alice.id,
          channelId: place,
          content: `<@${discord.botUserId}> what is on today?`,
        });
        const notice = await told;
        expect(notice.content).toBe(STORAGE_TROUBLE);
        expect(notice.message_reference?.message_id).toBe(trigger.id);
      } finally {
        await onBotDatabase((db) =>
          db.execute(sql`alter table channel_settings_away rename to channel_settings`),
        );
      }
      expect(llm.requests.length).toBe(callsBefore);
      await onBotDatabase(async (db) => {
        const rows = await db.execute(
          sql`select settled_at from message_claims where key = ${trigger.id}`,
        );
        const claims = (rows as { rows: Array<{ settled_at: unknown }> }).rows;
        // Told, so nothing is owed: no claim, or a settled one.
        expect(claims.every((claim) => claim.settled_at !== null)).toBe(true);
      });

      // The next start looks for what is owed; the told mention is not among it.
      llm.handle(() => textScript('Here after the restart.'));
      expect((await bot.stop()).code).toBe(0);
      bot.restart();
      await bot.waitUntilConnected();
      const next = discord.postMessage({
        authorId: world.alice.id,
        channelId: place,
        content: `<@${discord.botUserId}> and now?`,
      });
      expect((await waitForTurn(bot, next.id)).json?.['status']).toBe('complete');
      const answersToFirst = botMessagesIn(discord, place).filter(
        (message) =>
          message.message_reference?.message_id === trigger.id &&
          message.content !== STORAGE_TROUBLE,
      );
      expect(answersToFirst).toEqual([]);
      expect(llm.requests.length).toBe(callsBefore + 1);
    });

    it('a Retry press whose rate limit cannot be read is told to its presser, and a later press is answered', async () => {
      const { discord, llm, world } = harness;
      const place = channel('retry-no-rate-limit');
      llm.enqueue({ steps: [{ type: 'fail', kind: 'auth' }] });
      const failed = discord.waits.message({
        channelId: place,
        authorId: discord.botUserId,
        where: (message) => (message.components?.length ?? 0) > 0,
      });
      const trigger = discord.postMessage({
        authorId: world.alice.id,
        channelId: place,
        content: `<@${discord.botUserId}> help?`,
      });
      const notice = await failed;
      const press = () =>
        discord.pressButton({
          userId: world.alice.id,
          messageId: notice.id,
          customId: `retry:${trigger.id}`,
        });

      await onBotDatabase((db) =>
        db.execute(sql`alter table member_turns rename to member_turns_away`),
      );
      let told: APIMessage;
      try {
        told = await press().waitForFollowUp();
      } finally {
        await onBotDatabase((db) =>
          db.execute(sql`alter table member_turns_away rename to member_turns`),
        );
      }
      expect(told.content).toBe(STORAGE_TROUBLE);
      expect(((told.flags ?? 0) & MessageFlags.Ephemeral) !== 0).toBe(true);

      llm.handle(() => textScript('Retried, and answered.'));
      const answered = discord.waits.message({
        channelId: place,
        authorId: discord.botUserId,
        where: (message) => message.content === 'Retried, and answered.',
      });
      press();
      expect((await answered).message_reference?.message_id).toBe(trigger.id);
    });
  },
);
