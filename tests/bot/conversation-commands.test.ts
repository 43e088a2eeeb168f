/**
 * The conversation commands end to end through the real bot process, the loopback
 * Discord and the LLM stand-in: /reset makes the next turn see nothing earlier, /history shows
 * the metrics of real turns, /export returns the conversation as a file, /stop stops a live turn.
 */
import { MessageFlags, PermissionFlagsBits, type APIMessage } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { type Script, type ScriptStep } from '../support/llm-stand-in/script.ts';
import {
  botMessagesIn,
  botPings,
  createWorld,
  startHarness,
  waitForTurn,
  type BotHarness,
} from './support/bot-harness.ts';
import { commandsRegistered } from './support/slash-commands.ts';

function setup(discord: BotHarness['discord']) {
  const world = createWorld(discord);
  const moderators = discord.createRole({
    guildId: world.guild.id,
    name: 'moderators',
    permissions: PermissionFlagsBits.ManageMessages,
  });
  discord.build.updateMember({
    guildId: world.guild.id,
    userId: world.alice.id,
    roleIds: [moderators.id],
  });
  const member = (username: string) => {
    const user = discord.createUser({ username });
    discord.addMember({ guildId: world.guild.id, userId: user.id });
    return user;
  };
  const channel = (name: string) => discord.createChannel({ guildId: world.guild.id, name });
  return { ...world, carol: member('carol'), dave: member('dave'), channel };
}

/** A streamed answer with usage, its events 15 ms apart so speed numbers are real. */
function answer(text: string, usage = { inputTokens: 50, outputTokens: 700 }): Script {
  const steps: ScriptStep[] = text.split(/(?<= )/).map((piece) => ({ type: 'text', text: piece }));
  return {
    steps: [...steps, { type: 'usage', ...usage }, { type: 'finish', reason: 'stop' }],
    eventDelayMs: 15,
  };
}

const isEphemeral = (message: APIMessage) => ((message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;

describe('conversation commands', () => {
  let harness: BotHarness<ReturnType<typeof setup>>;
  /** Channels an earlier test left turns in, for the tests that read them. */
  const channels = { reset: '', history: '' };

  beforeAll(async () => {
    harness = await startHarness({ setup });
    await commandsRegistered(harness.discord, harness.bot);
  });
  afterAll(() => harness.dispose());

  /**
   * A mention whose reply shows its first paragraph and then waits on a gate (so the turn is
   * live), with the rest never to be sent once stopped.
   */
  async function heldReply(options: {
    channelId: string;
    authorId: string;
    ask: string;
    first: string;
    rest: string;
  }) {
    const { discord, llm, bot } = harness;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: options.first },
        { type: 'hold', gate },
        { type: 'text', text: options.rest },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const firstMessage = discord.waits.message({
      channelId: options.channelId,
      authorId: discord.botUserId,
    });
    const trigger = discord.postMessage({
      authorId: options.authorId,
      channelId: options.channelId,
      content: `<@${discord.botUserId}> ${options.ask}`,
    });
    const request = await llm.waitForRequest(llm.requests.length + 1);
    await firstMessage;
    return { gate, request, finished: waitForTurn(bot, trigger.id) };
  }

  async function ask(channelId: string, authorId: string, text: string) {
    const { discord, bot } = harness;
    const message = discord.postMessage({
      authorId,
      channelId,
      content: `<@${discord.botUserId}> ${text}`,
    });
    await waitForTurn(bot, message.id);
    return message;
  }

  it('/reset: the next turn sees nothing said before it, neither stored turns nor the window', async () => {
    const { discord, llm, world } = harness;
    const channel = world.channel('reset');
    channels.reset = channel.id;
    llm.enqueue(answer('Noted, teal it is.'));
    await ask(channel.id, world.alice.id, 'my favourite colour is teal');
    discord.postMessage({
      authorId: world.bob.id,
      channelId: channel.id,
      content: 'unrelated chatter about lunch',
    });

    const refused = discord.invokeSlashCommand({
      userId: world.bob.id,
      channelId: channel.id,
      command: 'reset',
    });
    const refusal = await refused.waitForOriginal();
    expect(isEphemeral(refusal)).toBe(true);
    expect(refusal.content).toContain('**Manage Messages**');

    const reset = discord.invokeSlashCommand({
      userId: world.alice.id,
      channelId: channel.id,
      command: 'reset',
    });
    const notice = await reset.waitForOriginal();
    expect(isEphemeral(notice)).toBe(false);
    expect(notice.content).toContain('Fresh start');
    expect(notice.content).toContain(`<@${world.alice.id}>`);
    // Everyone in the channel sees it.
    expect(discord.readChannel(channel.id, { as: world.bob.id }).map((m) => m.id)).toContain(
      notice.id,
    );

    const chatter = discord.waits.message({ channelId: channel.id, authorId: world.bob.id });
    discord.postMessage({
      authorId: world.bob.id,
      channelId: channel.id,
      content: 'said after the reset',
    });
    await chatter;
    llm.enqueue(answer('I do not know your favourite colour yet.'));
    await ask(channel.id, world.alice.id, 'what is my favourite colour?');
    const request = JSON.stringify(llm.requests.at(-1)?.body);
    expect(request).toContain('what is my favourite colour?');
    // The window after the reset is still there: only what came before it is gone.
    expect(request).toContain('said after the reset');
    for (const earlier of ['teal', 'lunch', 'Noted', 'Fresh start'])
      expect(request).not.toContain(earlier);
    expect(botPings(discord)).toEqual([]);
  });

  it('/reset stops a reply still being written, so none of it lands after the marker', async () => {
    const { discord, world } = harness;
    const channel = world.channel('reset-live');
    const { gate, request, finished } = await heldReply({
      channelId: channel.id,
      authorId: world.bob.id,
      ask: 'tell me a story',
      first: 'Let me tell you a long story.\n\n',
      rest: 'This part must never be sent.',
    });
    const reset = discord.invokeSlashCommand({
      userId: world.alice.id,
      channelId: channel.id,
      command: 'reset',
    });
    await reset.waitForOriginal();
    await request.settled;
    expect(request.clientClosed).toBe(true);
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
    const texts = botMessagesIn(discord, channel.id).map((message) => message.content);
    expect(texts.join('\n')).not.toContain('must never be sent');
  });

  it('/history: the last replies with tokens in/out, time to first token, tokens/s, status and tools', async () => {
    const { discord, llm, world } = harness;
    const channel = world.channel('history');
    channels.history = channel.id;
    llm.enqueue(answer('Pasta needs salted water.', { inputTokens: 40, outputTokens: 12 }));
    await ask(channel.id, world.alice.id, 'how do I cook pasta?');
    llm.enqueue(
      {
        steps: [
          { type: 'tool-calls', calls: [{ id: 'call_1', name: 'current_time', arguments: '{}' }] },
          { type: 'usage', inputTokens: 80, outputTokens: 9 },
          { type: 'finish', reason: 'tool_calls' },
        ],
      },
      answer('It is lunch time somewhere.', { inputTokens: 120, outputTokens: 30 }),
    );
    await ask(channel.id, world.bob.id, 'what time is it?');

    const history = discord.invokeSlashCommand({
      userId: world.bob.id,
      channelId: channel.id,
      command: 'history',
      options: { count: 5 },
    });
    const reply = await history.waitForOriginal();
    expect(isEphemeral(reply)).toBe(true);
    const fields = reply.embeds?.[0]?.fields ?? [];
    expect(fields).toHaveLength(2);
    const [newest, oldest] = fields;
    expect(newest?.name).toBe('✅ complete');
    // Both model calls of the tool turn count.
    expect(newest?.value).toContain('Tokens: **200** in · **39** out');
    expect(newest?.value).toContain('Tools: `current_time`');
    expect(newest?.value).toContain('> It is lunch time somewhere.');
    expect(oldest?.value).toContain('Tokens: **40** in · **12** out');
    expect(oldest?.value).toContain('Tools: none');
    for (const field of fields) {
      const speed = /First token \*\*(\d+) ms\*\* · \*\*([\d.,]+)\*\* tokens\/s/.exec(field.value);
      expect(speed, field.value).not.toBeNull();
      const firstTokenMs = Number(speed?.[1]);
      const tokensPerSecond = Number(speed?.[2]?.replace(',', ''));
      expect(firstTokenMs).toBeGreaterThanOrEqual(0);
      // Plausible, not fast: a busy machine may take seconds (the test's own ceiling bounds it).
      expect(firstTokenMs).toBeLessThan(180_000);
      expect(tokensPerSecond).toBeGreaterThan(0);
      expect(tokensPerSecond).toBeLessThan(100_000);
    }

    // Cooldowns are per user: each member here stays within the conversation burst.
    const japanese = discord.invokeSlashCommand({
      userId: world.alice.id,
      channelId: channel.id,
      command: 'history',
      options: { count: 1 },
      locale: 'ja',
    });
    const japaneseReply = await japanese.waitForOriginal();
    expect(japaneseReply.embeds?.[0]?.fields?.map((field) => field.name)).toEqual(['✅ 完了']);
  });

  it('/export: the conversation since the reset as a Markdown or JSON attachment', async () => {
    const { discord, world } = harness;
    const exportAs = async (channelId: string, format: 'markdown' | 'json') => {
      const handle = discord.invokeSlashCommand({
        userId: world.dave.id,
        channelId,
        command: 'export',
        options: { format },
      });
      const reply = await handle.waitForOriginal();
      expect(isEphemeral(reply)).toBe(true);
      const [attachment] = reply.attachments;
      if (attachment === undefined) throw new Error(`no attachment in: ${reply.content}`);
      const response = await fetch(attachment.url);
      return { reply, attachment, text: await response.text() };
    };

    const markdown = await exportAs(channels.history, 'markdown');
    expect(markdown.reply.content).toContain('4 turns');
    expect(markdown.attachment.filename).toBe(`conversation-${channels.history}.md`);
    const order = [
      `### alice (user, id ${world.alice.id})`,
      'how do I cook pasta?',
      `(assistant, id ${discord.botUserId})`,
      'Pasta needs salted water.',
      `### bob (user, id ${world.bob.id})`,
      'what time is it?',
      'It is lunch time somewhere.',
    ].map((fragment) => markdown.text.indexOf(fragment));
    expect(order.every((position) => position >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    const json = await exportAs(channels.history, 'json');
    expect(json.attachment.filename).toBe(`conversation-${channels.history}.json`);
    const parsed = JSON.parse(json.text) as {
      turns: Array<{
        role: string;
        author: { id: string };
        createdAt: string;
        content: string;
        metrics?: { outputTokens?: number };
      }>;
    };
    expect(parsed.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(parsed.turns.map((turn) => turn.author.id)).toEqual([
      world.alice.id,
      discord.botUserId,
      world.bob.id,
      discord.botUserId,
    ]);
    expect(parsed.turns[1]?.metrics?.outputTokens).toBe(12);
    expect(Number.isNaN(Date.parse(parsed.turns[0]?.createdAt ?? ''))).toBe(false);

    // Since the reset only: the turn before it is not in the file.
    const afterReset = await exportAs(channels.reset, 'markdown');
    expect(afterReset.text).toContain('what is my favourite colour?');
    expect(afterReset.text).not.toContain('teal');
  });

  it('/export follows members: an edited message is exported as edited, a deleted one not at all', async () => {
    const { discord, llm, bot, world } = harness;
    const channel = world.channel('second-thoughts');
    const followed = (messageId: string) =>
      bot.waitForLog(
        (line) =>
          line.json?.['msg'] === 'stored turn follows its message' &&
          line.json['messageId'] === messageId,
        { timeoutMs: 10_000 },
      );
    llm.enqueue(answer('Got it.'));
    const edited = await ask(channel.id, world.carol.id, 'my door code is 4321');
    llm.enqueue(answer('Sure.'));
    const deleted = await ask(channel.id, world.carol.id, 'my bank pin is 9876');
    const revision = followed(edited.id);
    discord.members.editMessage({
      authorId: world.carol.id,
      messageId: edited.id,
      content: `<@${discord.botUserId}> my door code is secret`,
    });
    await revision;
    const removal = followed(deleted.id);
    discord.members.deleteMessage({ actorId: world.carol.id, messageId: deleted.id });
    await removal;

    const handle = discord.invokeSlashCommand({
      userId: world.carol.id,
      channelId: channel.id,
      command: 'export',
      options: { format: 'markdown' },
    });
    const reply = await handle.waitForOriginal();
    const attachment = reply.attachments[0];
    if (attachment === undefined) throw new Error(`no attachment in: ${reply.content}`);
    const text = await (await fetch(attachment.url)).text();
    expect(text).toContain('my door code is secret');
    // Phrases, not the digits alone: a snowflake or a timestamp in the export can hold any four digits.
    expect(text).not.toContain('door code is 4321');
    expect(text).not.toContain('bank pin');
    expect(text).toContain('Sure.');
  });

  it('stores an edited message in the form of a new one: mentions as @names, never raw ids (12.12)', async () => {
    const { discord, llm, bot, world } = harness;
    const channel = world.channel('edited-mentions');
    llm.enqueue(answer('Will do.'));
    await ask(channel.id, world.carol.id, `say hello to <@${world.bob.id}>`);
    llm.enqueue(answer('Of course.'));
    const edited = await ask(channel.id, world.carol.id, 'say hello to everyone');
    const revision = bot.waitForLog(
      (line) =>
        line.json?.['msg'] === 'stored turn follows its message' &&
        line.json['messageId'] === edited.id,
      { timeoutMs: 60_000 },
    );
    discord.members.editMessage({
      authorId: world.carol.id,
      messageId: edited.id,
      content: `<@${discord.botUserId}> say goodbye to <@${world.bob.id}>`,
    });
    await revision;

    const handle = discord.invokeSlashCommand({
      userId: world.carol.id,
      channelId: channel.id,
      command: 'export',
      options: { format: 'json' },
    });
    const reply = await handle.waitForOriginal();
    const attachment = reply.attachments[0];
    if (attachment === undefined) throw new Error(`no attachment in: ${reply.content}`);
    const { turns } = JSON.parse(await (await fetch(attachment.url)).text()) as {
      turns: Array<{ role: string; content: string }>;
    };
    const stored = turns.filter((turn) => turn.role === 'user').map((turn) => turn.content);
    expect(stored).toHaveLength(2);
    const [asNew, asEdited] = stored;
    expect(asNew).toContain('say hello to @bob');
    // The same form: the bot's own mention and bob's rendered as a new message renders them.
    const botMention = asNew?.slice(0, asNew.indexOf(' say hello'));
    expect(asEdited).toBe(`${botMention ?? ''} say goodbye to @bob`);
    expect(asEdited).not.toContain('<@');
  });

  it('/stop: the live turn stops, is stored as stopped, and nothing more of it is sent', async () => {
    const { discord, llm, world } = harness;
    const channel = world.channel('stop');
    const { gate, request, finished } = await heldReply({
      channelId: channel.id,
      authorId: world.bob.id,
      ask: 'tell me all about pasta',
      first: 'Pasta is a wonderful subject. First, you boil the water.\n\n',
      rest: 'Then lots more text that must never appear.',
    });

    // Alice is a moderator here; a member who is neither the requester nor one may not stop.
    const { carol } = world;
    const refused = discord.invokeSlashCommand({
      userId: carol.id,
      channelId: channel.id,
      command: 'stop',
    });
    expect((await refused.waitForOriginal()).content).toContain('Only the member I am answering');
    expect(request.clientClosed).toBe(false);

    const stop = discord.invokeSlashCommand({
      userId: world.bob.id,
      channelId: channel.id,
      command: 'stop',
    });
    const stopped = await stop.waitForOriginal();
    expect(isEphemeral(stopped)).toBe(true);
    expect(stopped.content).toContain('Stopped');
    await request.settled;
    expect(request.clientClosed).toBe(true);
    gate.release();
    const line = await finished;
    expect(line.json?.['status']).toBe('stopped');

    const requestsAfterStop = llm.requests.length;
    const texts = botMessagesIn(discord, channel.id).map((message) => message.content);
    expect(texts.join('\n')).toContain('boil the water');
    expect(texts.join('\n')).not.toContain('must never appear');

    const again = discord.invokeSlashCommand({
      userId: world.bob.id,
      channelId: channel.id,
      command: 'stop',
    });
    expect((await again.waitForOriginal()).content).toContain('not writing anything');

    // Stored as stopped with its partial text, as after a natural stop.
    const history = discord.invokeSlashCommand({
      userId: carol.id,
      channelId: channel.id,
      command: 'history',
    });
    const field = (await history.waitForOriginal()).embeds?.[0]?.fields?.[0];
    expect(field?.name).toBe('⏹️ stopped');
    expect(field?.value).toContain('boil the water');
    // No in-persona acknowledgement (a model call) follows a /stop.
    expect(llm.requests.length).toBe(requestsAfterStop);
    expect(botPings(discord)).toEqual([]);
  });
});
