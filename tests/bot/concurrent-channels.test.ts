/**
 * End to end: ten channels streaming a 12-paragraph reply at once, with the loopback
 * Discord's per-channel buckets (5 writes per window) enforced, in both delivery modes. Every
 * channel completes, no write is answered with a 429, and the time and writes per channel are
 * reported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import type { Script, ScriptStep } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  botWrites,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

const CHANNELS = 10;
const PARAGRAPHS = 12;
/** Buckets run 5× faster than Discord's (5 writes per second instead of per 5 s). */
const TIME_SCALE = 0.2;

const PARAGRAPH_TEXTS = Array.from(
  { length: PARAGRAPHS },
  (_, index) =>
    `Paragraph ${index + 1}: ${'a calm sentence about the topic at hand, with a few more words. '.repeat(4).trim()}`,
);
const REPLY = PARAGRAPH_TEXTS.join('\n\n');

function streamedReply(): Script {
  const steps: ScriptStep[] = [];
  for (let index = 0; index < REPLY.length; index += 24) {
    steps.push({ type: 'text', text: REPLY.slice(index, index + 24) });
  }
  steps.push(
    { type: 'usage', inputTokens: 100, outputTokens: 600 },
    { type: 'finish', reason: 'stop' },
  );
  return { steps, eventDelayMs: 2 };
}

function buildWorld(discord: FakeDiscord) {
  const member = discord.createUser({ username: 'member' });
  const guildFor = (name: string) => {
    const guild = discord.createGuild({ name });
    discord.addMember({ guildId: guild.id, userId: member.id });
    const channels = Array.from({ length: CHANNELS }, (_, index) =>
      discord.createChannel({ guildId: guild.id, name: `${name}-${index}` }),
    );
    return { guild, channels };
  };
  return { member, messages: guildFor('messages'), edit: guildFor('edit') };
}
type World = ReturnType<typeof buildWorld>;

describe(`${CHANNELS} channels streaming at once`, () => {
  let harness: BotHarness<World>;
  beforeAll(async () => {
    harness = await startHarness<World>({
      discord: { rateLimitTimeScale: TIME_SCALE },
      setup: buildWorld,
      seed: async (db, world) => {
        await updateScopeSettings(
          db,
          { id: world.edit.guild.id, kind: 'guild' },
          { deliveryMode: 'edit' },
        );
      },
    });
  });
  afterAll(() => harness.dispose());

  it.each(['messages', 'edit'] as const)(
    'completes every channel with zero 429s in %s mode',
    async (mode) => {
      const { discord, llm, bot, world } = harness;
      const { channels } = world[mode];
      llm.handle(() => streamedReply());
      const started = Date.now();
      const triggers = channels.map((channel) =>
        discord.postMessage({
          authorId: world.member.id,
          channelId: channel.id,
          content: `<@${discord.botUserId}> tell me about the topic`,
        }),
      );
      await Promise.all(triggers.map((trigger) => waitForTurn(bot, trigger.id, 60_000)));
      llm.handle(undefined);

      const rows = channels.map((channel, index) => {
        const finished = bot
          .logs()
          .find(
            (line) =>
              line.json?.['msg'] === 'turn finished' &&
              line.json['messageId'] === triggers[index]?.id,
          );
        return {
          channel: channel.name,
          writes: botWrites(discord, channel.id).length,
          messages: botMessagesIn(discord, channel.id).length,
          turnMs: Number(finished?.json?.['durationMs']),
          status: String(finished?.json?.['status']),
        };
      });
      console.log(
        `${mode} mode, ${CHANNELS} channels, buckets at ${TIME_SCALE}× Discord's window:`,
      );
      console.table(rows);
      console.log(`wall time for all channels: ${Date.now() - started} ms`);

      expect(rows.every((row) => row.status === 'complete')).toBe(true);
      for (const channel of channels) {
        const shown = botMessagesIn(discord, channel.id)
          .map((message) => message.content)
          .join('\n');
        for (const paragraph of PARAGRAPH_TEXTS) expect(shown).toContain(paragraph);
        for (const message of botMessagesIn(discord, channel.id))
          expect(message.content.length).toBeLessThanOrEqual(2000);
      }
      expect(discord.requests({ status: 429 })).toEqual([]);
    },
    90_000,
  );
});
