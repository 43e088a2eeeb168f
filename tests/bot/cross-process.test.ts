/**
 * Cross-process state: two real bot processes (`node src/main.ts`) on one
 * PostgreSQL database and one loopback gateway. The loopback Discord delivers each interaction
 * to one gateway session, as Discord does, so a test chooses which process hears a command:
 * the one that does NOT stream the reply. Needs TEST_DATABASE_URL; skipped (and says why)
 * without it.
 */
import {
  ComponentType,
  MessageFlags,
  PermissionFlagsBits,
  type APIMessage,
} from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServerUrl } from '../support/bot-database.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startBot, type BotProcess, type LogLine } from '../support/scenario-runner.ts';
import {
  botMessagesIn,
  startHarness,
  TEST_API_KEY,
  TEST_MODEL,
  type BotHarness,
} from './support/bot-harness.ts';
import { chatRequests } from './support/chat-requests.ts';
import { commandsRegistered } from './support/slash-commands.ts';

const SKIPPED =
  testServerUrl() === undefined
    ? ' (skipped: two processes share a database only on PostgreSQL; set TEST_DATABASE_URL)'
    : '';
/** A stop heard by another process ends the stream within this: as prompt as a local one feels. */
const STOP_BOUND_MS = 500;

function setup(discord: BotHarness['discord']) {
  const guild = discord.createGuild({ name: 'Shared' });
  const member = (username: string, permissions?: bigint) => {
    const user = discord.createUser({ username });
    const roleIds =
      permissions === undefined
        ? []
        : [discord.createRole({ guildId: guild.id, name: `${username}-role`, permissions }).id];
    discord.addMember({ guildId: guild.id, userId: user.id, roleIds });
    return user;
  };
  return {
    guild,
    admin: member('admin', PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ManageMessages),
    bob: member('bob'),
    carol: member('carol'),
    dave: member('dave'),
    erin: member('erin'),
    /** Askers of the /config model test, whose turns no other test counts. */
    askers: [member('bob-2'), member('bob-3'), member('bob-4')],
    channel: (name: string) => discord.createChannel({ guildId: guild.id, name }),
  };
}

/** The custom id of the Stop button a message shows, if any. */
function stopButtonOf(message: APIMessage | undefined): string | undefined {
  for (const row of message?.components ?? []) {
    if (!('components' in row)) continue;
    for (const component of row.components) {
      if (component.type === ComponentType.Button && 'custom_id' in component) {
        if (component.custom_id.startsWith('stop-reply:')) return component.custom_id;
      }
    }
  }
  return undefined;
}

interface Process {
  name: 'first' | 'second';
  bot: BotProcess;
  /** Its gateway session on the loopback Discord. */
  sessionId: string;
}

describe.skipIf(SKIPPED !== '')(`two bot processes on one PostgreSQL${SKIPPED}`, () => {
  let harness: BotHarness<ReturnType<typeof setup>>;
  let processes: [Process, Process];

  beforeAll(async () => {
    harness = await startHarness({ setup, databaseKind: 'postgres' });
    const { discord, llm, database } = harness;
    await commandsRegistered(discord, harness.bot);
    const firstSessions = discord.gateway.sessions().map((session) => session.id);
    const second = startBot({
      discord,
      env: {
        ...database.environment,
        OPENAI_BASE_URL: llm.openAIBaseUrl,
        OPENAI_API_KEY: TEST_API_KEY,
        DEFAULT_PROVIDER: 'openai',
        DEFAULT_MODEL: TEST_MODEL,
      },
    });
    const disposeHarness = harness.dispose;
    harness.dispose = async () => {
      await second.dispose();
      await disposeHarness();
    };
    await second.waitUntilConnected();
    await commandsRegistered(discord, second);
    const secondSession = discord.gateway
      .sessions()
      .find((session) => !firstSessions.includes(session.id));
    processes = [
      { name: 'first', bot: harness.bot, sessionId: firstSessions[0] ?? '' },
      { name: 'second', bot: second, sessionId: secondSession?.id ?? '' },
    ];
  });
  afterAll(() => harness?.dispose());

  /**
   * The process that took a member message (its claim), and the other one. Its log line may
   * reach this test after the reply reaches the loopback Discord (two pipes), so it is awaited.
   */
  async function whoAnswers(messageId: string): Promise<{ streaming: Process; other: Process }> {
    const accepted = (line: LogLine) =>
      line.json?.['msg'] === 'message accepted' && line.json['messageId'] === messageId;
    const [first, second] = processes;
    const settled = new AbortController();
    const heardBy = (process: Process) =>
      process.bot
        .waitForLog(accepted, { timeoutMs: 30_000, signal: settled.signal })
        .then(() => process);
    const streaming = await Promise.any([heardBy(first), heardBy(second)]).catch(() => {
      throw new Error(`no process took message ${messageId}`);
    });
    settled.abort();
    return { streaming, other: streaming === first ? second : first };
  }

  function turnFinished(process: Process, messageId: string) {
    return process.bot.waitForLog(
      (line) => line.json?.['msg'] === 'turn finished' && line.json['messageId'] === messageId,
      { timeoutMs: 60_000 },
    );
  }

  /**
   * The next "settings changed in another process" line of `process`, newer than any it logged
   * so far: call it before the command that changes them.
   */
  function nextSettingsNews(process: Process): Promise<LogLine> {
    const heard = (line: LogLine) => line.json?.['msg'] === 'settings changed in another process';
    const versionOf = (line: LogLine) => Number(line.json?.['version']);
    const known = Math.max(-1, ...process.bot.logs().filter(heard).map(versionOf));
    return process.bot.waitForLog((line) => heard(line) && versionOf(line) > known, {
      timeoutMs: 10_000,
    });
  }

  /** A mention whose reply shows a first paragraph, then holds (live) on a gate. */
  async function heldReply(channelId: string, authorId: string) {
    const { discord, llm } = harness;
    const gate = createGate();
    llm.enqueue({
      steps: [
        { type: 'text', text: 'Here is the first part of a long answer.\n\n' },
        { type: 'hold', gate },
        { type: 'text', text: 'This part must never be sent.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const firstMessage = discord.waits.message({ channelId, authorId: discord.botUserId });
    const trigger = discord.postMessage({
      authorId,
      channelId,
      content: `<@${discord.botUserId}> tell me a long story`,
    });
    const request = await llm.waitForRequest(llm.requests.length + 1);
    await firstMessage;
    return { gate, request, trigger, ...(await whoAnswers(trigger.id)) };
  }

  it('/stop heard by the process that does not stream the reply stops it within 500 ms', async () => {
    const { discord, world } = harness;
    const channel = world.channel('stop');
    const { gate, request, trigger, streaming, other } = await heldReply(channel.id, world.bob.id);
    const finished = turnFinished(streaming, trigger.id);

    // Carol is neither the member answered nor a moderator: the streaming process says no.
    const refused = discord.invokeSlashCommand({
      userId: world.carol.id,
      channelId: channel.id,
      command: 'stop',
      sessionId: other.sessionId,
    });
    expect((await refused.waitForOriginal()).content).toContain('Only the member I am answering');
    expect(request.clientClosed).toBe(false);

    const askedAt = performance.now();
    const stop = discord.invokeSlashCommand({
      userId: world.bob.id,
      channelId: channel.id,
      command: 'stop',
      sessionId: other.sessionId,
    });
    await request.settled;
    const abortedAfterMs = performance.now() - askedAt;
    const reply = await stop.waitForOriginal();
    const repliedAfterMs = performance.now() - askedAt;
    expect(request.clientClosed).toBe(true);
    expect(reply.content).toContain('Stopped');
    expect(((reply.flags ?? 0) & MessageFlags.Ephemeral) !== 0).toBe(true);
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
    expect(
      other.bot.logs().some((line) => line.json?.['msg'] === 'stopped by /stop'),
      'the other process handled the command',
    ).toBe(true);
    const texts = botMessagesIn(discord, channel.id).map((message) => message.content);
    expect(texts.join('\n')).toContain('first part');
    expect(texts.join('\n')).not.toContain('must never be sent');
    console.info(
      `/stop via the ${other.name} process for a reply the ${streaming.name} streams: ` +
        `model stream closed after ${abortedAfterMs.toFixed(0)} ms, command answered after ` +
        `${repliedAfterMs.toFixed(0)} ms`,
    );
    expect(abortedAfterMs).toBeLessThan(STOP_BOUND_MS);
  });

  it('a Stop press heard by the process that does not stream the reply stops it within 500 ms', async () => {
    const { discord, world } = harness;
    const channel = world.channel('stop-button');
    const { gate, request, trigger, streaming, other } = await heldReply(channel.id, world.bob.id);
    const finished = turnFinished(streaming, trigger.id);
    const first = botMessagesIn(discord, channel.id)[0];
    const stopId = stopButtonOf(first);
    expect(stopId).toMatch(/^stop-reply:/);
    const press = (userId: string) =>
      discord.pressButton({
        userId,
        messageId: first?.id ?? '',
        customId: stopId ?? '',
        sessionId: other.sessionId,
      });

    // Carol is neither the member answered nor a moderator: the streaming process says no.
    const refusal = await press(world.carol.id).waitForFollowUp();
    expect(refusal.content).toContain('Only the member I am answering');
    expect(((refusal.flags ?? 0) & MessageFlags.Ephemeral) !== 0).toBe(true);
    expect(request.clientClosed).toBe(false);

    const pressedAt = performance.now();
    const pressed = press(world.bob.id);
    await request.settled;
    const abortedAfterMs = performance.now() - pressedAt;
    const acknowledgement = await pressed.waitForFollowUp();
    expect(request.clientClosed).toBe(true);
    expect(acknowledgement.content).toContain('Stopped');
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
    expect(
      other.bot.logs().some((line) => line.json?.['msg'] === 'stopped by the Stop button'),
      'the other process handled the press',
    ).toBe(true);
    const messages = botMessagesIn(discord, channel.id);
    expect(messages.map((message) => message.content).join('\n')).not.toContain('never be sent');
    expect(messages.map(stopButtonOf)).toEqual(messages.map(() => undefined));
    console.info(
      `Stop press via the ${other.name} process for a reply the ${streaming.name} streams: ` +
        `model stream closed ${abortedAfterMs.toFixed(0)} ms after the press`,
    );
    expect(abortedAfterMs).toBeLessThan(STOP_BOUND_MS);
  });

  it('a Stop press while the streaming process is frozen is "sent, not confirmed", and applied when it wakes', async () => {
    // The button names the turn by the id its journal row carries: the other process, hearing
    // no answer, finds that row `streaming` in a live process and says the stop was sent. With
    // two ids per turn (the button's and the row's) it found nothing and said "nothing to stop".
    const { discord, world } = harness;
    const channel = world.channel('stop-frozen');
    const { gate, trigger, streaming, other } = await heldReply(channel.id, world.bob.id);
    const finished = turnFinished(streaming, trigger.id);
    const first = botMessagesIn(discord, channel.id)[0];
    const stopId = stopButtonOf(first);
    const pid = streaming.bot.pid;
    if (pid === undefined) throw new Error('the streaming process has no pid');
    process.kill(pid, 'SIGSTOP');
    let answer: APIMessage;
    try {
      answer = await discord
        .pressButton({
          userId: world.bob.id,
          messageId: first?.id ?? '',
          customId: stopId ?? '',
          sessionId: other.sessionId,
        })
        .waitForFollowUp();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(answer.content).toContain('Stop sent');
    expect(((answer.flags ?? 0) & MessageFlags.Ephemeral) !== 0).toBe(true);
    // Awake again, the streaming process hears the stop it missed and applies it.
    expect((await finished).json?.['status']).toBe('stopped');
    gate.release();
    expect(
      botMessagesIn(discord, channel.id)
        .map((message) => message.content)
        .join('\n'),
    ).not.toContain('never be sent');
  });

  it('/reset heard by the other process stops the reply still being written', async () => {
    const { discord, world } = harness;
    const channel = world.channel('reset');
    const { gate, request, trigger, streaming, other } = await heldReply(channel.id, world.bob.id);
    const finished = turnFinished(streaming, trigger.id);
    const askedAt = performance.now();
    const reset = discord.invokeSlashCommand({
      userId: world.admin.id,
      channelId: channel.id,
      command: 'reset',
      sessionId: other.sessionId,
    });
    await request.settled;
    const abortedAfterMs = performance.now() - askedAt;
    expect((await reset.waitForOriginal()).content).toContain('Fresh start');
    expect(request.clientClosed).toBe(true);
    gate.release();
    expect((await finished).json?.['status']).toBe('stopped');
    console.info(
      `/reset via the ${other.name} process: stream closed after ${abortedAfterMs.toFixed(0)} ms`,
    );
    expect(abortedAfterMs).toBeLessThan(STOP_BOUND_MS);
  });

  it('/config model in one process is used by the next turn the other process answers', async () => {
    const { discord, llm, world } = harness;
    llm.handle(() => textScript('Noted.'));
    const channel = world.channel('config');
    const [first, second] = processes;
    // Both processes have the guild's settings cached by now (every message reads them).
    const news = nextSettingsNews(second);
    const invokedAt = Date.now();
    const changed = discord.invokeSlashCommand({
      userId: world.admin.id,
      channelId: channel.id,
      command: 'config',
      subcommand: 'model',
      options: { name: 'gpt-5.4-nano' },
      sessionId: first.sessionId,
    });
    expect((await changed.waitForOriginal()).content).toContain('gpt-5.4-nano');
    const heard = await news;
    expect(heard.json?.['dropped']).toBe(true);
    // From the command to the other process dropping its copy, on this host's clock (pino's
    // `time`); the command's own live check of the model is part of it.
    const heardAfterMs = Number(heard.json?.['time']) - invokedAt;
    expect(heardAfterMs).toBeLessThan(1_000);
    // Mentions until the second process answers one (each one goes to whichever claims it).
    let answeredBySecond = false;
    // Members in turn: one member's 10 turns a minute could run out before the second process
    // wins a claim (the rate limit's notice would then be the bot message awaited below).
    const askers = [world.bob, ...world.askers];
    for (let attempt = 0; attempt < 20 && !answeredBySecond; attempt += 1) {
      const before = llm.requests.length;
      const trigger = discord.postMessage({
        authorId: (askers[attempt % askers.length] ?? world.bob).id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> question ${attempt}`,
      });
      await discord.waits.message({ channelId: channel.id, authorId: discord.botUserId });
      const { streaming } = await whoAnswers(trigger.id);
      await turnFinished(streaming, trigger.id);
      const requests = chatRequests(llm.requests.slice(before));
      expect(requests.map((request) => request.model)).toEqual(['gpt-5.4-nano']);
      answeredBySecond = streaming === second;
    }
    expect(answeredBySecond).toBe(true);
    console.info(
      `/config model in the first process: the second dropped its copy ${heardAfterMs.toFixed(0)} ms after the command`,
    );
  });

  it('a Retry press heard by the other process re-asks the message there, answered once', async () => {
    const { discord, llm, world } = harness;
    llm.handle(() => textScript('Answered on the retry.'));
    llm.enqueue({ steps: [{ type: 'fail', kind: 'auth' }] });
    const channel = world.channel('retry');
    const notice = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => (message.components?.length ?? 0) > 0,
    });
    const trigger = discord.postMessage({
      authorId: world.erin.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> help?`,
    });
    const failure = await notice;
    const { other } = await whoAnswers(trigger.id);
    const retried = turnFinished(other, trigger.id);
    discord.pressButton({
      userId: world.erin.id,
      messageId: failure.id,
      customId: `retry:${trigger.id}`,
      sessionId: other.sessionId,
    });
    expect((await retried).json?.['status']).toBe('complete');
    const answers = botMessagesIn(discord, channel.id).filter(
      (message) => message.content === 'Answered on the retry.',
    );
    expect(answers).toHaveLength(1);
    expect(discord.message(failure.id)).toBeUndefined();
  });

  it('holds a member to the rate limit across both processes, each message counted once', async () => {
    const { discord, llm, world } = harness;
    llm.handle(() => textScript('Sure.'));
    const channel = world.channel('rate');
    const news = nextSettingsNews(processes[1]);
    const limited = discord.invokeSlashCommand({
      userId: world.admin.id,
      channelId: channel.id,
      command: 'config',
      subcommand: 'ratelimit',
      options: { turns: 2 },
      sessionId: processes[0].sessionId,
    });
    expect((await limited.waitForOriginal()).content).toContain('up to **2** replies');
    await news;
    const before = chatRequests(llm.requests).length;
    const triggers = Array.from({ length: 4 }, (_unused, index) =>
      discord.postMessage({
        authorId: world.carol.id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> quick question ${index}`,
      }),
    );
    const isNotice = (message: { content: string }) =>
      message.content.includes('faster than I can answer');
    const noticeSeen = discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: isNotice,
    });
    await noticeSeen;
    // Dave's mention after them: once it is answered, both processes have routed carol's.
    const sentinel = discord.postMessage({
      authorId: world.dave.id,
      channelId: channel.id,
      content: `<@${discord.botUserId}> and me?`,
    });
    await discord.waits.message({
      channelId: channel.id,
      authorId: discord.botUserId,
      where: (message) => message.message_reference?.message_id === sentinel.id,
    });
    const answered = triggers.filter((trigger) =>
      processes.some((process) =>
        process.bot
          .logs()
          .some(
            (line) =>
              line.json?.['msg'] === 'message accepted' && line.json['messageId'] === trigger.id,
          ),
      ),
    );
    expect(answered.map((trigger) => trigger.id)).toEqual(triggers.slice(0, 2).map((t) => t.id));
    // Each of carol's two allowed messages was taken by one process only.
    const acceptances = (id: string) =>
      processes
        .flatMap((process) => process.bot.logs())
        .filter(
          (line) => line.json?.['msg'] === 'message accepted' && line.json['messageId'] === id,
        ).length;
    expect(triggers.slice(0, 2).map((trigger) => acceptances(trigger.id))).toEqual([1, 1]);
    // Two of carol's and dave's: three turns, or two when dave's message arrived while carol's
    // first was answered and was coalesced with her second.
    const modelCalls = chatRequests(llm.requests).length - before;
    expect(modelCalls).toBeGreaterThanOrEqual(2);
    expect(modelCalls).toBeLessThanOrEqual(3);
    // A refused message never costs a model call; every allowed one reaches the model.
    const asked = JSON.stringify(chatRequests(llm.requests).slice(before));
    for (const text of ['quick question 0', 'quick question 1', 'and me?'])
      expect(asked, `${text} reached the model`).toContain(text);
    const notices = botMessagesIn(discord, channel.id).filter(isNotice);
    const noticed = notices.map((notice) => notice.message_reference?.message_id);
    expect(new Set(noticed).size, 'one notice per refused message at most').toBe(noticed.length);
    expect(noticed.every((id) => id === triggers[2]?.id || id === triggers[3]?.id)).toBe(true);
  });
});
