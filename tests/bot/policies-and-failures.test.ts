/**
 * End to end: DM isolation, provider failures (429 then success; an auth error with a
 * Retry button) and the channel policies (coalesce, queue).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMemory } from '../../src/db/memory-repository.ts';
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
  const main = createWorld(discord, 'Main');
  const queued = createWorld(discord, 'Queued');
  const carol = discord.createUser({ username: 'carol' });
  discord.addMember({ guildId: main.guild.id, userId: carol.id });
  discord.addMember({ guildId: queued.guild.id, userId: carol.id });
  return { main, queued, carol };
}
type World = ReturnType<typeof buildWorld>;

describe('policies and failures, end to end', () => {
  let harness: BotHarness<World>;
  beforeAll(async () => {
    harness = await startHarness<World>({
      setup: buildWorld,
      seed: async (db, world) => {
        const guild = { id: world.main.guild.id, kind: 'guild' as const };
        await updateScopeSettings(db, guild, {
          personaName: 'GuildPersona',
          personaInstructions: 'You are the guild mascot.',
        });
        await addMemory(db, {
          scope: guild,
          owner: { kind: 'server' },
          authorId: world.main.alice.id,
          content: 'The server mascot is a blue heron.',
          limit: 50,
        });
        await addMemory(db, {
          scope: guild,
          owner: { kind: 'user', ownerId: world.main.alice.id },
          authorId: world.main.alice.id,
          content: 'Alice plays the oboe.',
          limit: 20,
        });
        await updateScopeSettings(
          db,
          { id: world.main.alice.id, kind: 'dm' },
          { personaName: 'DmPersona' },
        );
        await updateScopeSettings(
          db,
          { id: world.queued.guild.id, kind: 'guild' },
          { queuePolicy: 'queue', queueDepth: 1 },
        );
      },
    });
  });
  afterAll(() => harness.dispose());

  it('keeps a DM conversation apart from guild settings and memories', async () => {
    const { discord, llm, bot, world } = harness;
    const guildTrigger = discord.postMessage({
      authorId: world.main.alice.id,
      channelId: world.main.channel.id,
      content: `<@${discord.botUserId}> hello from the server`,
    });
    llm.enqueue(textScript('Hi from the guild!'));
    await waitForTurn(bot, guildTrigger.id);
    const guildRequest = llm.requests.at(-1);
    expect(guildRequest?.systemText).toContain('GuildPersona');
    expect(JSON.stringify(guildRequest?.body)).toContain('blue heron');
    expect(JSON.stringify(guildRequest?.body)).toContain('oboe');

    const dm = discord.openDirectMessage(world.main.alice.id);
    llm.enqueue(textScript('Hi in private!'));
    const dmTrigger = discord.postMessage({
      authorId: world.main.alice.id,
      channelId: dm.id,
      content: 'hello in private',
    });
    await waitForTurn(bot, dmTrigger.id);
    const dmRequest = llm.requests.at(-1);
    const dmBody = JSON.stringify(dmRequest?.body);
    expect(dmRequest?.systemText).toContain('DmPersona');
    expect(dmRequest?.systemText).not.toContain('GuildPersona');
    expect(dmBody).not.toContain('blue heron');
    expect(dmBody).not.toContain('oboe');
    expect(dmBody).not.toContain('hello from the server');
    expect(botMessagesIn(discord, dm.id).map((message) => message.content)).toEqual([
      'Hi in private!',
    ]);
  });

  it('retries a provider 429 (honouring retry-after) and then answers', async () => {
    const { discord, llm, bot, world } = harness;
    const before = llm.requests.length;
    llm.enqueue({ steps: [{ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 1 }] });
    llm.enqueue(textScript('Answered after the rate limit.'));
    const trigger = discord.postMessage({
      authorId: world.main.bob.id,
      channelId: world.main.channel.id,
      content: `<@${discord.botUserId}> are you there?`,
    });
    await waitForTurn(bot, trigger.id);
    expect(llm.requests.length - before).toBe(2);
    expect(botMessagesIn(discord, world.main.channel.id).at(-1)?.content).toBe(
      'Answered after the rate limit.',
    );
  });

  it('shows an auth error as a short localized message with Retry, and Retry succeeds once the key works', async () => {
    const { discord, llm, world } = harness;
    let keyWorks = false;
    llm.handle(() =>
      keyWorks ? textScript('Now it works!') : { steps: [{ type: 'fail', kind: 'auth' }] },
    );
    const notice = discord.waits.message({
      channelId: world.main.channel.id,
      authorId: discord.botUserId,
      where: (message) => (message.components?.length ?? 0) > 0,
    });
    const trigger = discord.postMessage({
      authorId: world.carol.id,
      channelId: world.main.channel.id,
      content: `<@${discord.botUserId}> can you help?`,
    });
    const failure = await notice;
    expect(failure.content).toContain('/config apikey');
    expect(failure.content).toMatch(/Incident `[0-9a-f]{8}`/);
    expect(failure.content).not.toMatch(/invalid_api_key|Incorrect API key|sk-/);
    expect(failure.message_reference?.message_id).toBe(trigger.id);
    const retryButton = JSON.stringify(failure.components);
    expect(retryButton).toContain(`retry:${trigger.id}`);

    keyWorks = true;
    const answer = discord.waits.message({
      channelId: world.main.channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content === 'Now it works!',
    });
    const noticeGone = discord.waits.messageDelete({
      channelId: world.main.channel.id,
      messageId: failure.id,
    });
    discord.pressButton({
      userId: world.carol.id,
      messageId: failure.id,
      customId: `retry:${trigger.id}`,
    });
    await noticeGone;
    expect((await answer).message_reference?.message_id).toBe(trigger.id);
    llm.handle(undefined);
    expect(botPings(discord)).toEqual([]);
  });

  it('coalesces messages that arrive during a live turn into one next turn', async () => {
    const { discord, llm, bot, world } = harness;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'hold', gate },
        { type: 'text', text: 'First answer.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.enqueue(textScript('Answering both of you.'));
    const before = llm.requests.length;
    const first = discord.postMessage({
      authorId: world.main.alice.id,
      channelId: world.main.channel.id,
      content: `<@${discord.botUserId}> first question`,
    });
    await llm.waitForRequest(before + 1);
    const middle = discord.postMessage({
      authorId: world.main.bob.id,
      channelId: world.main.channel.id,
      content: `<@${discord.botUserId}> bob asks`,
    });
    const last = discord.postMessage({
      authorId: world.carol.id,
      channelId: world.main.channel.id,
      content: `<@${discord.botUserId}> carol asks`,
    });
    // Both wait in the queue before the live turn ends (intake's database steps take a while on
    // PostgreSQL; released sooner, the first turn could end before they arrive).
    await Promise.all(
      [middle, last].map((message) =>
        bot.waitForLog(
          (line) =>
            line.json?.['msg'] === 'message accepted' && line.json['messageId'] === message.id,
          { timeoutMs: 60_000 },
        ),
      ),
    );
    gate.release();
    await waitForTurn(bot, first.id);
    await waitForTurn(bot, last.id);
    // One model request answers both waiting messages (other requests, if any, are not theirs).
    const asked = llm.requests
      .slice(before)
      .map((request) => request.lastUserText ?? '')
      .filter((text) => text.includes('bob asks') || text.includes('carol asks'));
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('bob asks');
    expect(asked[0]).toContain('carol asks');
  });

  it('queues one turn per message up to the depth and tells the next member politely', async () => {
    const { discord, llm, bot, world } = harness;
    const { channel, alice, bob } = world.queued;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'hold', gate },
        { type: 'text', text: 'One.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    llm.enqueue(textScript('Two.'));
    const before = llm.requests.length;
    const first = discord.postMessage({
      authorId: alice.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> one`,
    });
    await llm.waitForRequest(before + 1);
    const second = discord.postMessage({
      authorId: bob.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> two`,
    });
    const politeNote = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
    });
    const third = discord.postMessage({
      authorId: world.carol.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> three`,
    });
    const note = await politeNote;
    expect(note.message_reference?.message_id).toBe(third.id);
    expect(note.content).toMatch(/still answering/);
    gate.release();
    await waitForTurn(bot, first.id);
    await waitForTurn(bot, second.id);
    expect(llm.requests.length - before).toBe(2);
    expect(llm.requests.at(-1)?.lastUserText).toContain('two');
    expect(llm.requests.at(-1)?.lastUserText).not.toContain('three');
  });
});
