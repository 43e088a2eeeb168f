/**
 * End to end on the real bot process: every member message that triggers the bot is
 * answered, refused with a reason, or stopped — in coalesced batches, in queues, across a
 * graceful shutdown and a crash.
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
  const world = createWorld(discord, 'Integrity');
  const carol = discord.createUser({ username: 'carol' });
  discord.addMember({ guildId: world.guild.id, userId: carol.id });
  return { ...world, carol };
}
type World = ReturnType<typeof buildWorld>;

const held = (gate: ReturnType<typeof createGate>, text: string) => ({
  steps: [
    { type: 'hold' as const, gate },
    { type: 'text' as const, text },
    { type: 'finish' as const, reason: 'stop' as const },
  ],
});

async function start(policy: 'coalesce' | 'queue', env: Record<string, string> = {}) {
  return startHarness<World>({
    setup: buildWorld,
    env,
    seed: (db, world) =>
      updateScopeSettings(
        db,
        { id: world.guild.id, kind: 'guild' },
        { queuePolicy: policy, queueDepth: 5 },
      ).then(() => undefined),
  });
}

/** The router's line once a message is claimed and handed to its channel's scheduler. */
function accepted(bot: BotHarness['bot'], messageId: string) {
  return bot.waitForLog(
    (line) => line.json?.['msg'] === 'message accepted' && line.json['messageId'] === messageId,
    { timeoutMs: 60_000 },
  );
}

describe('turn integrity, end to end', () => {
  let harness: BotHarness<World> | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  it('lets any author of a coalesced batch stop it, not only the last one', async () => {
    harness = await start('coalesce');
    const { discord, llm, bot, world } = harness;
    const first = createGate();
    const batch = createGate();
    llm.enqueue(held(first, 'Answering Alice.'));
    llm.enqueue(held(batch, 'Answering Bob and Carol.'));
    const alice = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> first`,
    });
    await llm.waitForRequest(1);
    discord.postMessage({
      authorId: world.bob.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> bob asks`,
    });
    const carol = discord.postMessage({
      authorId: world.carol.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> carol asks`,
    });
    await accepted(bot, carol.id);
    first.release();
    await waitForTurn(bot, alice.id, 60_000);
    await llm.waitForRequest(2);
    const stopped = bot.waitForLog(/stopped by a member/, { timeoutMs: 60_000 });
    discord.postMessage({ authorId: world.bob.id, channelId: world.channel.id, content: 'stop' });
    await stopped;
    batch.release();
    const finished = await waitForTurn(bot, carol.id, 60_000);
    expect(finished.json?.['status']).toBe('stopped');
    expect(
      botMessagesIn(discord, world.channel.id).map((message) => message.content),
    ).not.toContain('Answering Bob and Carol.');
  });

  it('never answers a waiting message its author withdrew', async () => {
    harness = await start('queue');
    const { discord, llm, bot, world } = harness;
    const gate = createGate();
    llm.enqueue(held(gate, 'Answering Alice.'));
    llm.handle(() => textScript('Answering a waiting message.'));
    const alice = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> first`,
    });
    await llm.waitForRequest(1);
    const bob = discord.postMessage({
      authorId: world.bob.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> a question that waits`,
    });
    await accepted(bot, bob.id);
    const withdrawn = bot.waitForLog(/withdrew waiting messages/, { timeoutMs: 60_000 });
    discord.postMessage({
      authorId: world.bob.id,
      channelId: world.channel.id,
      content: 'never mind',
    });
    await withdrawn;
    // Carol's later message runs after whatever still waits: Bob's would have run first.
    const carol = discord.postMessage({
      authorId: world.carol.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> carol asks`,
    });
    await accepted(bot, carol.id);
    gate.release();
    await waitForTurn(bot, alice.id, 60_000);
    await waitForTurn(bot, carol.id, 60_000);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests.at(-1)?.lastUserText).toContain('carol asks');
    expect(
      botMessagesIn(discord, world.channel.id).filter(
        (message) => message.message_reference?.message_id === bob.id,
      ),
    ).toEqual([]);
  });

  it('hands waiting messages back at SIGTERM and answers them, and notes the cut reply, after a restart', async () => {
    harness = await start('queue', { SHUTDOWN_GRACE_MS: '200' });
    const { discord, llm, bot, world } = harness;
    const gate = createGate();
    llm.enqueue(held(gate, 'This reply is cut by the shutdown.'));
    const alice = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> a long story please`,
    });
    await llm.waitForRequest(1);
    const bob = discord.postMessage({
      authorId: world.bob.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> and my question?`,
    });
    await accepted(bot, bob.id);
    expect(await bot.stop({ timeoutMs: 60_000 })).toEqual({ code: 0, signal: null });
    expect(bot.output()).toMatch(/waiting messages handed back/);

    llm.handle(() => textScript('Here is your answer, Bob.'));
    const note = discord.waits.message({
      channelId: world.channel.id,
      authorId: discord.botUserId,
      where: (message) => message.message_reference?.message_id === alice.id,
    });
    bot.restart();
    await bot.waitUntilConnected({ timeoutMs: 120_000 });
    await waitForTurn(bot, bob.id, 60_000);
    expect((await note).content).toMatch(/restarting/);
    expect(JSON.stringify((await note).components)).toContain(`retry:${alice.id}`);
    expect(
      botMessagesIn(discord, world.channel.id).filter(
        (message) => message.message_reference?.message_id === bob.id,
      ),
    ).toHaveLength(1);
  });

  it('after SIGKILL mid-reply, answers the queued message and tells the member whose reply was cut', async () => {
    harness = await start('queue');
    const { discord, llm, bot, world } = harness;
    const gate = createGate();
    llm.enqueue(held(gate, 'Never finished.'));
    const alice = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> tell me everything`,
    });
    await llm.waitForRequest(1);
    const bob = discord.postMessage({
      authorId: world.bob.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> me too`,
    });
    // Bob's message is claimed (in the ledger) before the kill.
    await bot
      .waitForLog((line) => line.json?.['messageId'] === bob.id || /queued/.test(line.text), {
        timeoutMs: 5_000,
      })
      .catch(() => undefined);
    await bot.kill();
    gate.release();
    llm.handle(() => textScript('Answering after the crash.'));
    const note = discord.waits.message({
      channelId: world.channel.id,
      authorId: discord.botUserId,
      where: (message) => message.message_reference?.message_id === alice.id,
    });
    bot.restart();
    await bot.waitUntilConnected({ timeoutMs: 120_000 });
    await waitForTurn(bot, bob.id, 60_000);
    expect((await note).content).toMatch(/restarting/);
  });

  it('answers a Retry press at once, and explains privately when the retry cannot run yet (rate limit)', async () => {
    harness = await startHarness<World>({
      setup: buildWorld,
      seed: (db, world) =>
        updateScopeSettings(
          db,
          { id: world.guild.id, kind: 'guild' },
          { memberTurnsPerMinute: 1 },
        ).then(() => undefined),
    });
    const { discord, llm, world } = harness;
    llm.handle(() => ({ steps: [{ type: 'fail', kind: 'auth' }] }));
    const notice = discord.waits.message({
      channelId: world.channel.id,
      authorId: discord.botUserId,
      where: (message) => (message.components?.length ?? 0) > 0,
    });
    const trigger = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> help?`,
    });
    const failure = await notice;
    // The follow-up the press gets (a webhook message on the interaction's token).
    const followUp = discord.waits.request(
      { method: 'POST', route: /^\/webhooks\/\d+\/[^/]+$/ },
      { timeoutMs: 60_000 },
    );
    discord.pressButton({
      userId: world.alice.id,
      messageId: failure.id,
      customId: `retry:${trigger.id}`,
    });
    const explanation = (await followUp).body as { content?: string; flags?: number };
    expect(explanation.content).toMatch(/faster than I can answer/);
    expect((explanation.flags ?? 0) & 64).toBe(64); // ephemeral: the presser alone sees it
    // The notice stays: the retry did not run.
    expect(discord.message(failure.id)).toBeDefined();
    expect(llm.requests).toHaveLength(1);
  });
});
