/**
 * End to end on the real bot process: the conversation the model sees matches what members saw,
 * even when the gateway's echo of the bot's own reply comes after the channel's next turn (as it
 * may after a resume, or whenever Discord's gateway lags its REST answers).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { asObject } from '../support/llm-stand-in/recorded-request.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';

type World = ReturnType<typeof createWorld>;

describe("the bot's own replies in the next turn's context", () => {
  let harness: BotHarness<World> | undefined;
  afterEach(async () => {
    harness?.discord.gateway.releaseDispatches();
    await harness?.dispose();
    harness = undefined;
  });

  it('holds a delivered reply whose gateway echo has not arrived yet', async () => {
    harness = await startHarness<World>({ setup: (discord) => createWorld(discord, 'Echo') });
    const { discord, llm, bot, world } = harness;
    const botUserId = discord.botUserId;
    discord.gateway.holdDispatches(
      (type, data) =>
        type === 'MESSAGE_CREATE' && asObject(asObject(data)['author'])['id'] === botUserId,
    );

    llm.enqueue(textScript('The capital of Peru is LIMA-7731.'));
    const first = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${botUserId}> what is the capital of Peru?`,
    });
    await waitForTurn(bot, first.id);
    const shown = botMessagesIn(discord, world.channel.id).map((message) => message.content);
    expect(shown.join('\n')).toContain('LIMA-7731');

    llm.enqueue(textScript('You are welcome.'));
    const second = discord.postMessage({
      authorId: world.bob.id,
      channelId: world.channel.id,
      content: `<@${botUserId}> thanks!`,
    });
    const request = await llm.waitForRequest(2);
    await waitForTurn(bot, second.id);
    const sent = JSON.stringify(request.body);
    expect(sent).toContain('LIMA-7731');
    // Once, as the bot's own turn: not again as a member's words.
    expect(sent.split('LIMA-7731')).toHaveLength(2);
  });
});
