/**
 * The bot-loop guard (`/config answer-bots`: at most 3 replies to other bots in a row per
 * channel) across a restart, end to end on the real bot process: a bot's message handed back at
 * shutdown and answered by the next start counts toward the limit like a live one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

function buildWorld(discord: FakeDiscord) {
  const world = createWorld(discord, 'Bots');
  const robo = discord.createUser({ username: 'robo', bot: true });
  discord.addMember({ guildId: world.guild.id, userId: robo.id });
  return { ...world, robo };
}
type World = ReturnType<typeof buildWorld>;

describe('the bot-loop guard across a restart', () => {
  let harness: BotHarness<World> | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  it('counts a bot message answered by the recovery after a restart toward the limit', async () => {
    harness = await startHarness<World>({
      setup: buildWorld,
      env: { SHUTDOWN_GRACE_MS: '200' },
      seed: (db, world) =>
        updateScopeSettings(
          db,
          { id: world.guild.id, kind: 'guild' },
          // Every second message is answered: a count the restart does not keep.
          {
            queuePolicy: 'queue',
            queueDepth: 5,
            autoReplyEveryN: 2,
            featureFlags: { answerBots: true },
          },
        ).then(() => undefined),
    });
    const { discord, llm, bot, world } = harness;
    const post = (authorId: string, content: string) =>
      discord.postMessage({ authorId, channelId: world.channel.id, content });
    const mention = `<@${discord.botUserId}>`;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'hold', gate },
        { type: 'text', text: 'Cut by the shutdown.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.handle(() => textScript('Beep, answered.'));

    post(world.alice.id, `${mention} a long story please`);
    await llm.waitForRequest(1);
    post(world.robo.id, 'status report one');
    // The second message since the last answer: claimed and waiting behind Alice's reply.
    const waiting = post(world.robo.id, 'status report two');
    await bot.waitForLog(
      (line) => line.json?.['msg'] === 'message accepted' && line.json['messageId'] === waiting.id,
      { timeoutMs: 60_000 },
    );
    expect(await bot.stop({ timeoutMs: 60_000 })).toEqual({ code: 0, signal: null });
    expect(bot.output()).toMatch(/waiting messages handed back/);

    bot.restart();
    await bot.waitUntilConnected({ timeoutMs: 120_000 });
    await waitForTurn(bot, waiting.id);
    // Replies to robo in a row: the recovered one, then two more; the third is one too many.
    const [second, third, fourth] = [1, 2, 3].map((index) =>
      post(world.robo.id, `${mention} ping ${index}`),
    );
    // Alice's message is answered after whatever robo's messages started (one queue).
    const last = post(world.alice.id, `${mention} are you still there?`);
    await waitForTurn(bot, last.id);
    gate.release();

    const answered = (messageId: string | undefined) =>
      botMessagesIn(discord, world.channel.id).some(
        (message) => message.message_reference?.message_id === messageId,
      );
    expect([waiting, second, third, fourth, last].map((message) => answered(message?.id))).toEqual([
      true,
      true,
      true,
      false,
      true,
    ]);
  });

  it('keeps the count across a restart: the fourth reply to a bot in a row waits for a person', async () => {
    harness = await startHarness<World>({
      setup: buildWorld,
      seed: (db, world) =>
        updateScopeSettings(
          db,
          { id: world.guild.id, kind: 'guild' },
          { featureFlags: { answerBots: true } },
        ).then(() => undefined),
    });
    const { discord, llm, bot, world } = harness;
    llm.handle(() => textScript('Beep, answered.'));
    const post = (authorId: string, content: string) =>
      discord.postMessage({
        authorId,
        channelId: world.channel.id,
        content: `<@${discord.botUserId}> ${content}`,
      });
    for (const index of [1, 2, 3]) await waitForTurn(bot, post(world.robo.id, `ping ${index}`).id);
    expect(await bot.stop({ timeoutMs: 60_000 })).toEqual({ code: 0, signal: null });
    bot.restart();
    await bot.waitUntilConnected({ timeoutMs: 120_000 });

    const fourth = post(world.robo.id, 'ping 4');
    const person = post(world.alice.id, 'hello?');
    await waitForTurn(bot, person.id);
    const fifth = post(world.robo.id, 'ping 5');
    await waitForTurn(bot, fifth.id);
    const answered = (messageId: string) =>
      botMessagesIn(discord, world.channel.id).some(
        (message) => message.message_reference?.message_id === messageId,
      );
    expect([fourth, person, fifth].map((message) => answered(message.id))).toEqual([
      false,
      true,
      true,
    ]);
  });
});
