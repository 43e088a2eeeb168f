/**
 * A character's reply across a restart, end to end: the real bot process against the loopback
 * Discord and the LLM stand-in. A webhook message cannot answer a member's message as the
 * bot's replies do (no reply reference), so recovery knows a character's reply by the record
 * of each message it posted. A reply whose end was delivered before the process died is
 * recorded as it stands, nothing told; a reply cut off keeps what members saw, loses its Stop
 * button (edited through the webhook) and its member gets the restart note with Retry. Neither
 * is answered a second time.
 */
import { PermissionFlagsBits, type APIMessage } from 'discord-api-types/v10';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELEASED_CLAIM } from '../../src/db/claim-repository.ts';
import { createCharacter } from '../../src/db/character-repository.ts';
import type { Database } from '../../src/db/database.ts';
import { addToScene } from '../../src/db/scene-repository.ts';
import { repliesTo } from '../../src/db/turn-repository.ts';
import { conversationTurns, messageClaims } from '../../src/db/schema.ts';
import { updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { DEFAULT_BOT_PERMISSIONS } from '../fake-discord/rules/default-permissions.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startHarness, waitForTurn, type BotHarness } from './support/bot-harness.ts';
import { characterFields } from './support/character-fields.ts';
import { chatRequests } from './support/chat-requests.ts';

function buildWorld(discord: FakeDiscord) {
  const guild = discord.createGuild({
    name: 'Crossroads',
    botPermissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.ManageWebhooks,
  });
  const mika = discord.createUser({ username: 'mika' });
  discord.addMember({ guildId: guild.id, userId: mika.id });
  const inn = discord.createChannel({ guildId: guild.id, name: 'inn' });
  return { guild, mika, inn };
}

type World = ReturnType<typeof buildWorld>;

const WELCOME = 'Welcome to the Crossroads Inn!';
const STORY_START = 'Once, a traveller came in from the rain.';

function buttonIds(message: APIMessage | undefined): string[] {
  return (message?.components ?? []).flatMap((row) =>
    'components' in row
      ? row.components.flatMap((component) =>
          'custom_id' in component ? [component.custom_id] : [],
        )
      : [],
  );
}

/** The reply (assistant turn) recorded for a member message. */
async function replyTo(db: Database, triggerMessageId: string) {
  const [reply] = await db.select().from(conversationTurns).where(repliesTo(triggerMessageId));
  return reply;
}

describe('a character’s reply across a restart', () => {
  let harness: BotHarness<World>;

  beforeAll(async () => {
    harness = await startHarness({
      setup: buildWorld,
      seed: async (db, world) => {
        const scope = { id: world.guild.id, kind: 'guild' as const };
        await updateScopeSettings(db, scope, { memberTurnsPerMinute: 0 });
        const saved = await createCharacter(db, {
          scope,
          createdBy: world.mika.id,
          fields: characterFields('Alice', 'Alice keeps the inn.'),
          limit: 10,
        });
        if (saved.status !== 'saved') throw new Error('could not seed Alice');
        await addToScene(db, {
          channelId: world.inn.id,
          characterId: saved.character.id,
          limit: 8,
        });
      },
    });
    harness.llm.handle(() => textScript(WELCOME));
  });
  afterAll(() => harness.dispose());

  /** The next message the webhook posts in the inn under Alice's name. */
  function nextLine(): Promise<APIMessage> {
    const { discord, world } = harness;
    return discord.waits.message({
      channelId: world.inn.id,
      where: (message) => message.webhook_id !== undefined && message.author.username === 'Alice',
    });
  }

  /** Mika's message to Alice, and the first message Alice posts answering it. */
  async function askAlice(content: string) {
    const { discord, world } = harness;
    const line = nextLine();
    const trigger = discord.postMessage({
      authorId: world.mika.id,
      channelId: world.inn.id,
      content,
    });
    return { trigger, shown: await line };
  }

  function restartNotes(): APIMessage[] {
    const { discord, world } = harness;
    return discord
      .readChannel(world.inn.id)
      .filter(
        (message) =>
          message.author.id === discord.botUserId && message.content.startsWith('I was restarting'),
      );
  }

  it('records a reply whose end was delivered before the restart as it stands, telling nothing', async () => {
    const { bot, llm } = harness;
    const { trigger, shown } = await askAlice('Alice, a room please?');
    await waitForTurn(bot, trigger.id);
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    const requests = chatRequests(llm.requests).length;
    // As a process that died after the reply's last write leaves it: its Stop button gone
    // from the channel, but neither the turn's end nor the message's settling recorded.
    await harness.withDatabase(async (db) => {
      await db
        .update(messageClaims)
        .set({ settledAt: null, instanceId: RELEASED_CLAIM, claimedAt: new Date() })
        .where(eq(messageClaims.key, trigger.id));
      await db
        .update(conversationTurns)
        .set({ status: 'streaming', content: '', metrics: null, discordMessageIds: [] })
        .where(repliesTo(trigger.id));
    });

    bot.restart();
    await bot.waitUntilConnected();
    const recorded = await bot.waitForLog(/a reply delivered before a restart: recorded as it/);
    expect(recorded.json?.['messageId']).toBe(trigger.id);
    expect(await bot.stop()).toEqual({ code: 0, signal: null });

    expect(restartNotes()).toEqual([]);
    expect(chatRequests(llm.requests)).toHaveLength(requests);
    await harness.withDatabase(async (db) => {
      const reply = await replyTo(db, trigger.id);
      expect(reply).toMatchObject({
        status: 'complete',
        content: WELCOME,
        discordMessageIds: [shown.id],
      });
    });
    bot.restart();
    await bot.waitUntilConnected();
  });

  it('tells a cut reply’s member once, keeps what was shown and takes its Stop button away', async () => {
    const { discord, world, bot, llm } = harness;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: `${STORY_START}\n\n` },
        { type: 'hold', gate },
        { type: 'text', text: 'A line the crash must keep from the channel.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const { trigger, shown } = await askAlice('Alice, tell me a story');
    expect(buttonIds(discord.message(shown.id))[0]).toMatch(/^stop-reply:/);
    const requests = chatRequests(llm.requests).length;

    await bot.kill();
    gate.release();
    const note = discord.waits.message({
      channelId: world.inn.id,
      authorId: discord.botUserId,
      where: (message) => message.content.startsWith('I was restarting'),
    });
    bot.restart();
    await bot.waitUntilConnected();
    const told = await note;
    expect(told.message_reference?.message_id).toBe(trigger.id);
    expect(buttonIds(told)[0]).toMatch(/^retry/);
    await bot.waitForLog(/a reply was cut off by a restart/);

    // Edited through the webhook before the note was written: no live-looking Stop is left.
    const cut = discord.message(shown.id);
    expect(cut?.content).toBe(STORY_START);
    expect(buttonIds(cut)).toEqual([]);
    const edits = discord.requests({
      method: 'PATCH',
      route: '/webhooks/:webhookId/:token/messages/:messageId',
    });
    expect(edits.at(-1)?.body).toMatchObject({ components: [], allowed_mentions: { parse: [] } });
    expect(restartNotes()).toHaveLength(1);
    expect(chatRequests(llm.requests)).toHaveLength(requests);

    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    await harness.withDatabase(async (db) => {
      const reply = await replyTo(db, trigger.id);
      expect(reply).toMatchObject({ status: 'failed', content: STORY_START });
    });
  });
});
