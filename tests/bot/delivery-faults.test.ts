/**
 * End to end through the real bot process and discord.js against the
 * loopback Discord: message POST/PATCH failing with 500 (discord.js retries 3 times at once,
 * then the sink retries with backoff) and 403, the message being edited deleted mid-reply —
 * and the notices those failures leave never coming back to the model as its own words.
 */
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

const GAP_NOTICE = '-# (part of this reply could not be sent)';
/** One create or edit as discord.js sends it: its first try and its 3 immediate retries. */
const REQUESTS_PER_TRY = 4;

function buildWorld(discord: FakeDiscord) {
  return { posts: createWorld(discord, 'Posts'), edits: createWorld(discord, 'Edits') };
}
type World = ReturnType<typeof buildWorld>;

const messagesOf = (channelId: string) => new RegExp(`^/channels/${channelId}/messages$`);
const messageOf = (channelId: string) => new RegExp(`^/channels/${channelId}/messages/\\d+$`);

// Generous ceilings: the sink's backoff is real time in the bot process (about 4 s per lost write).
describe('failed Discord writes, end to end', { timeout: 60_000 }, () => {
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

  function mention(channelId: string, authorId: string, text: string) {
    const { discord } = started();
    return discord.postMessage({ authorId, channelId, content: `<@${discord.botUserId}> ${text}` });
  }

  it('retries a create that failed with 500 after discord.js gave up, and posts it once', async () => {
    const { discord, llm, bot, world } = started();
    const { channel, alice } = world.posts;
    llm.enqueue(textScript('Delivered after a hiccup.'));
    discord.faults.failRoute({
      method: 'POST',
      route: messagesOf(channel.id),
      status: 500,
      times: REQUESTS_PER_TRY,
    });
    const trigger = mention(channel.id, alice.id, 'hello');
    const finished = await waitForTurn(bot, trigger.id);
    expect(finished.json?.['status']).toBe('complete');
    const posts = discord.requests({ method: 'POST', route: messagesOf(channel.id) });
    expect(posts.map((entry) => entry.status)).toEqual([500, 500, 500, 500, 200]);
    // One logical create: every try carried the same nonce, with enforce_nonce.
    const nonces = new Set(posts.map((entry) => (entry.body as { nonce?: string }).nonce));
    expect(nonces.size).toBe(1);
    expect(
      posts.every((entry) => (entry.body as { enforce_nonce?: boolean }).enforce_nonce === true),
    ).toBe(true);
    expect(botMessagesIn(discord, channel.id).map((message) => message.content)).toEqual([
      'Delivered after a hiccup.',
    ]);
  });

  it('marks the gap when a block is lost for good, fails the turn and tells the member', async () => {
    const { discord, llm, bot, world } = started();
    const { channel, alice } = world.posts;
    const afterFirst = createGate();
    const afterSecond = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Part one.\n\n' },
        { type: 'hold', gate: afterFirst },
        { type: 'text', text: 'Part two.\n\n' },
        { type: 'hold', gate: afterSecond },
        { type: 'text', text: 'Part three.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const first = discord.waits.message({ channelId: channel.id, authorId: discord.botUserId });
    const trigger = mention(channel.id, alice.id, 'three parts please');
    await first;
    // Part two fails every try: discord.js's 4 requests, 3 times (the sink's retries).
    discord.faults.failRoute({
      method: 'POST',
      route: messagesOf(channel.id),
      status: 503,
      times: REQUESTS_PER_TRY * 3,
    });
    const lost = bot.waitForLog((line) => line.json?.['msg'] === 'a Discord write failed', {
      timeoutMs: 20_000,
    });
    afterFirst.release();
    await lost;
    const notice = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content.includes('Incident'),
    });
    afterSecond.release();
    const finished = await waitForTurn(bot, trigger.id);
    expect(finished.json?.['status']).toBe('failed');
    const failure = await notice;
    expect(failure.content).toContain("Discord didn't accept part of my reply");
    expect(failure.message_reference?.message_id).toBe(trigger.id);
    const shown = botMessagesIn(discord, channel.id)
      .filter((message) => BigInt(message.id) > BigInt(trigger.id))
      .map((message) => message.content);
    expect(shown.slice(0, 3)).toEqual(['Part one.', GAP_NOTICE, 'Part three.']);
    expect(botPings(discord)).toEqual([]);
  });

  it('stops at a 403 without retrying the write, and tries the notice once', async () => {
    const { discord, llm, bot } = started();
    const { channel, alice } = createWorld(discord, 'Refused');
    llm.enqueue(textScript('You will never see this.'));
    discord.faults.refuseRoute({ method: 'POST', route: messagesOf(channel.id), code: 50013 });
    const trigger = mention(channel.id, alice.id, 'hi');
    const finished = await waitForTurn(bot, trigger.id);
    expect(finished.json?.['status']).toBe('failed');
    await bot.waitForLog(
      (line) =>
        line.json?.['msg'] === 'could not post the failure notice' &&
        line.json['messageId'] === trigger.id,
    );
    const posts = discord.requests({ method: 'POST', route: messagesOf(channel.id) });
    // The reply's write, then one notice (refused too: the permission is still gone).
    expect(posts.map((entry) => entry.status)).toEqual([403, 403]);
  });

  it('edit mode: a PATCH that keeps failing is not taken as written; the turn fails with a notice', async () => {
    const { discord, llm, bot, world } = started();
    const { channel, alice } = world.edits;
    const grown = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'The beginning of the answer' },
        { type: 'hold', gate: grown },
        { type: 'text', text: ', and the end that never shows.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const first = discord.waits.message({ channelId: channel.id, authorId: discord.botUserId });
    const trigger = mention(channel.id, alice.id, 'explain');
    const shownFirst = await first;
    discord.faults.failRoute({ method: 'PATCH', route: messageOf(channel.id), status: 500 });
    const notice = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content.includes('Incident'),
    });
    grown.release();
    const finished = await waitForTurn(bot, trigger.id, 25_000);
    expect(finished.json?.['status']).toBe('failed');
    await notice;
    expect(discord.message(shownFirst.id)?.content).toBe('The beginning of the answer');
    const patches = discord.requests({ method: 'PATCH', route: messageOf(channel.id) });
    expect(patches.length).toBe(REQUESTS_PER_TRY * 3);
  });

  it('edit mode: when the message being edited is deleted, the reply continues whole in a new one', async () => {
    const { discord, llm, bot, world } = started();
    const { channel, alice, guild } = world.edits;
    const grown = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Draft one' },
        { type: 'hold', gate: grown },
        { type: 'text', text: ', grown into the whole answer.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const first = discord.waits.message({ channelId: channel.id, authorId: discord.botUserId });
    const trigger = mention(channel.id, alice.id, 'draft');
    const draft = await first;
    discord.members.deleteMessage({ actorId: guild.ownerId, messageId: draft.id });
    const replacement = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content === 'Draft one, grown into the whole answer.',
    });
    grown.release();
    const finished = await waitForTurn(bot, trigger.id);
    expect(finished.json?.['status']).toBe('complete');
    await replacement;
  });

  it("never feeds a failure notice back to the model as the bot's own reply", async () => {
    const { discord, llm, bot } = started();
    const { channel, alice } = createWorld(discord, 'Notices');
    llm.enqueue({ steps: [{ type: 'fail', kind: 'auth' }] });
    const notice = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.content.includes('Incident'),
    });
    mention(channel.id, alice.id, 'first question');
    await notice;
    llm.enqueue(textScript('Here is the answer.'));
    const request = llm.waitForRequest(llm.requests.length + 1);
    const second = mention(channel.id, alice.id, 'second question');
    await waitForTurn(bot, second.id);
    const body = (await request).body as { messages: Array<{ role: string; content: unknown }> };
    const text = JSON.stringify(body.messages);
    expect(text).toContain('first question');
    expect(text).not.toContain('Incident');
    expect(body.messages.filter((message) => message.role === 'assistant')).toEqual([]);
  });
});
