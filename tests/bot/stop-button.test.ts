/**
 * The Stop button end to end through the real bot process, discord.js and the loopback
 * Discord: it sits on a reply's first message while the reply streams; the member answered
 * (or a moderator) stops the reply with it, anyone else is told no, privately; and when the
 * reply ends — stopped or complete, one message or several, in either delivery mode — no
 * message keeps it.
 */
import { ComponentType, MessageFlags, type APIMessage } from 'discord-api-types/v10';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  botPings,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

function buildWorld(discord: FakeDiscord) {
  return { posts: createWorld(discord, 'Posts'), edits: createWorld(discord, 'Edits') };
}
type World = ReturnType<typeof buildWorld>;

const isEphemeral = (message: APIMessage) => ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;

/** The custom ids of the buttons a message shows. */
function buttonsOf(message: APIMessage | undefined): string[] {
  return (message?.components ?? []).flatMap((row) =>
    'components' in row
      ? row.components.flatMap((component) =>
          component.type === ComponentType.Button && 'custom_id' in component
            ? [component.custom_id]
            : [],
        )
      : [],
  );
}

describe('the Stop button, end to end', { timeout: 60_000 }, () => {
  let harness: BotHarness<World> | undefined;
  beforeAll(async () => {
    harness = await startHarness<World>({
      setup: buildWorld,
      seed: async (db, world) => {
        await updateScopeSettings(
          db,
          { id: world.edits.guild.id, kind: 'guild' },
          { deliveryMode: 'edit' },
        );
      },
    });
  }, 120_000);
  afterEach(() => harness?.discord.faults.clear());
  afterAll(() => harness?.dispose());

  function started(): BotHarness<World> {
    if (harness === undefined) throw new Error('the bot did not start');
    return harness;
  }

  /** A new channel in the world of `mode` (its guild's delivery mode), and its two members. */
  function place(mode: 'posts' | 'edits') {
    const { discord, world } = started();
    const { guild, alice, bob } = world[mode];
    return { channel: discord.createChannel({ guildId: guild.id, name: mode }), alice, bob };
  }

  /** A reply that shows its first paragraph, then waits on a gate (the turn stays live). */
  async function heldReply(channelId: string, authorId: string) {
    const { discord, llm, bot } = started();
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Pasta is a wonderful subject. First, you boil the water.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'Then lots more text that must never appear.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const firstMessage = discord.waits.message({ channelId, authorId: discord.botUserId });
    const trigger = discord.postMessage({
      authorId,
      channelId,
      content: `<@${discord.botUserId}> tell me all about pasta`,
    });
    const request = await llm.waitForRequest(llm.requests.length + 1);
    const first = await firstMessage;
    return { gate, request, first, finished: waitForTurn(bot, trigger.id) };
  }

  for (const mode of ['posts', 'edits'] as const) {
    it(`${mode}: the member answered stops the reply with it, another member is refused`, async () => {
      const { discord } = started();
      const { channel, alice, bob } = place(mode);
      const { gate, request, first, finished } = await heldReply(channel.id, alice.id);
      const [stopId] = buttonsOf(discord.message(first.id));
      expect(stopId).toMatch(/^stop-reply:/);

      const refused = discord.pressButton({
        userId: bob.id,
        messageId: first.id,
        customId: stopId ?? '',
      });
      const refusal = await refused.waitForFollowUp();
      expect(isEphemeral(refusal)).toBe(true);
      expect(refusal.content).toContain('Only the member I am answering');
      expect(request.clientClosed).toBe(false);

      const pressed = discord.pressButton({
        userId: alice.id,
        messageId: first.id,
        customId: stopId ?? '',
      });
      const acknowledgement = await pressed.waitForFollowUp();
      expect(isEphemeral(acknowledgement)).toBe(true);
      expect(acknowledgement.content).toContain('Stopped');
      await request.settled;
      expect(request.clientClosed).toBe(true);
      gate.release();
      expect((await finished).json?.['status']).toBe('stopped');

      const messages = botMessagesIn(discord, channel.id);
      expect(messages.map((message) => message.content).join('\n')).toContain('boil the water');
      expect(messages.map((message) => message.content).join('\n')).not.toContain('never appear');
      expect(messages.flatMap(buttonsOf)).toEqual([]);
      expect(botPings(discord)).toEqual([]);
    });
  }

  it('a press whose acknowledgement Discord fails with a 5xx still stops the reply', async () => {
    const { discord } = started();
    const { channel, alice } = place('posts');
    const { gate, request, first, finished } = await heldReply(channel.id, alice.id);
    const [stopId] = buttonsOf(discord.message(first.id));
    // Every interaction callback fails (discord.js's own retries included): no verdict that the
    // press was handled elsewhere, so the stop must not be dropped.
    discord.faults.failRoute({
      method: 'POST',
      route: '/interactions/:interactionId/:token/callback',
      status: 503,
    });
    discord.pressButton({ userId: alice.id, messageId: first.id, customId: stopId ?? '' });
    await request.settled;
    expect(request.clientClosed).toBe(true);
    discord.faults.clear();
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
  });

  it('a press on a reply that has ended says there is nothing to stop, and takes the button away', async () => {
    const { discord } = started();
    const { channel, alice } = place('posts');
    const { gate, first, finished } = await heldReply(channel.id, alice.id);
    const [stopId] = buttonsOf(discord.message(first.id));
    // The end's own removal edit is refused: the button outlives the reply.
    discord.faults.forbidRoute({
      method: 'PATCH',
      route: new RegExp(`^/channels/${channel.id}/messages/${first.id}$`),
      times: 1,
    });
    gate.release();
    expect((await finished).json?.['status']).toBe('complete');
    expect(buttonsOf(discord.message(first.id))).toEqual([stopId]);

    const late = discord.pressButton({
      userId: alice.id,
      messageId: first.id,
      customId: stopId ?? '',
    });
    const told = await late.waitForFollowUp();
    expect(isEphemeral(told)).toBe(true);
    expect(told.content).toContain('nothing to stop');
    expect(buttonsOf(discord.message(first.id))).toEqual([]);
  });

  for (const mode of ['posts', 'edits'] as const) {
    it(`${mode}: after a normal completion no message keeps a Stop button`, async () => {
      const { discord, llm, bot } = started();
      const { channel, alice } = place(mode);
      const paragraphs = Array.from(
        { length: 4 },
        (_, index) => `Paragraph ${index + 1}: ${'words about pasta '.repeat(40)}`,
      );
      llm.enqueue(textScript(paragraphs.join('\n\n')));
      const trigger = discord.postMessage({
        authorId: alice.id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> tell me more`,
      });
      expect((await waitForTurn(bot, trigger.id)).json?.['status']).toBe('complete');
      const created = discord
        .requests({ method: 'POST', route: new RegExp(`^/channels/${channel.id}/messages$`) })
        .map((entry) => JSON.stringify(entry.body));
      // The reply's first message was created with the button while the reply streamed.
      expect(created[0]).toContain('"custom_id":"stop-reply:');
      expect(created.slice(1).join()).not.toContain('"custom_id"');
      const messages = botMessagesIn(discord, channel.id);
      expect(messages.length).toBeGreaterThan(1);
      expect(messages.flatMap(buttonsOf)).toEqual([]);
      expect(botPings(discord)).toEqual([]);
    });
  }

  it('posts: a one-paragraph reply, complete when it is posted, never gets the button nor an edit', async () => {
    const { discord, llm, bot } = started();
    const { channel, alice } = place('posts');
    llm.enqueue(textScript(`Short and sweet: ${'a thought about pasta '.repeat(12)}`));
    const trigger = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> one line please`,
    });
    expect((await waitForTurn(bot, trigger.id)).json?.['status']).toBe('complete');
    const route = new RegExp(`^/channels/${channel.id}/messages`);
    const created = discord.requests({ method: 'POST', route });
    expect(created.map((entry) => JSON.stringify(entry.body)).join()).not.toContain('custom_id');
    expect(discord.requests({ method: 'PATCH', route })).toEqual([]);
    expect(botMessagesIn(discord, channel.id).map((message) => message.content)).toEqual([
      expect.stringContaining('Short and sweet'),
    ]);
  });
});
