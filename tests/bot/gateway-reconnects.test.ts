/**
 * End to end: the real bot process against the loopback Discord while the
 * gateway goes away. A close it can resume (4000, 1006) loses nothing; a close that forces a
 * fresh session (1000, a refused RESUME) is backfilled, so the mention sent during the gap is
 * answered, and so is a mention sent while the process was stopped (the channels' last message
 * seen is kept in the database). Every close is logged with its code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { createGate } from '../support/llm-stand-in/gate.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startBot, type BotProcess, type LogLine } from '../support/scenario-runner.ts';
import { scratchDatabase, type ScratchDatabase } from './support/scratch-database.ts';
import { commandsRegistered } from './support/slash-commands.ts';
import {
  botMessagesIn,
  createWorld,
  TEST_API_KEY,
  TEST_MODEL,
  waitForTurn,
} from './support/bot-harness.ts';

/** Ceilings, waited for as events: a busy 2-core machine starts the bot slowly. */
const START_CEILING_MS = 90_000;
const TURN_CEILING_MS = 60_000;

let discord: FakeDiscord;
let llm: LlmStandIn;
let bot: BotProcess;
let dataDir: string;
let database: ScratchDatabase | undefined;
let world: ReturnType<typeof createWorld>;

beforeAll(async () => {
  discord = await startFakeDiscord({ rateLimitTimeScale: 0.1 });
  llm = await LlmStandIn.start();
  dataDir = mkdtempSync(path.join(tmpdir(), 'bot-gateway-'));
  world = createWorld(discord);
  database = await scratchDatabase();
  bot = startBot({
    discord,
    dataDir,
    ...(database.url === undefined ? {} : { databaseUrl: database.url }),
    env: {
      OPENAI_BASE_URL: llm.openAIBaseUrl,
      OPENAI_API_KEY: TEST_API_KEY,
      DEFAULT_PROVIDER: 'openai',
      DEFAULT_MODEL: TEST_MODEL,
    },
  });
  await bot.waitUntilConnected({ timeoutMs: START_CEILING_MS });
}, START_CEILING_MS + 10_000);

afterAll(async () => {
  await bot?.dispose();
  await llm?.close();
  await discord?.close();
  await database?.drop();
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

/** Posts a mention of the bot, with the reply the model will give; returns its id. */
function mention(content: string, reply: string): string {
  llm.enqueue(textScript(reply));
  const message = discord.postMessage({
    authorId: world.alice.id,
    channelId: world.channel.id,
    content: `<@${discord.botUserId}> ${content}`,
  });
  return message.id;
}

/** Posts mentions of the bot as `authorId` (in the world's channel unless told); returns an id. */
function mentionsFrom(authorId: string) {
  return (content: string, channelId = world.channel.id) =>
    discord.postMessage({ authorId, channelId, content: `<@${discord.botUserId}> ${content}` }).id;
}

/** A new member of the world's guild, posting mentions of the bot. */
function newMember(username: string) {
  const user = discord.createUser({ username });
  discord.addMember({ guildId: world.guild.id, userId: user.id });
  return mentionsFrom(user.id);
}

/**
 * Starts the stopped bot with its reads of the world's channel failing `times` times (503, a
 * read being four requests with discord.js's retries); returns the log lines from before.
 */
async function restartWithFailingReads(times: number): Promise<Set<LogLine>> {
  discord.faults.failRoute({
    method: 'GET',
    route: `/channels/${world.channel.id}/messages`,
    status: 503,
    times,
  });
  const earlier = new Set(bot.logs());
  bot.restart();
  await bot.waitUntilConnected({ timeoutMs: START_CEILING_MS });
  return earlier;
}

const closeLogged = (code: number) =>
  bot.waitForLog(
    (line) =>
      typeof line.json?.['msg'] === 'string' &&
      line.json['msg'].startsWith('gateway connection closed') &&
      line.json['code'] === code,
    { timeoutMs: TURN_CEILING_MS },
  );

const lastReply = () => botMessagesIn(discord, world.channel.id).at(-1)?.content;

describe('gateway closes, on the real bot', { timeout: 180_000 }, () => {
  it('logged each start-up phase with its duration, and a ready-made invite link', async () => {
    const invite = await bot.waitForLog(/invite/, { timeoutMs: TURN_CEILING_MS });
    await bot.waitForLog(
      (line) =>
        line.json?.['msg'] === 'start-up phase done' && line.json['phase'] === 'discord-login',
      { timeoutMs: TURN_CEILING_MS },
    );
    const phases = bot
      .logs()
      .filter((line) => line.json?.['msg'] === 'start-up phase done')
      .map((line) => [line.json?.['phase'], typeof line.json?.['durationMs']]);
    expect(phases).toEqual(
      [
        'config',
        'database',
        'migrations',
        'providers',
        'discord-client',
        'tools',
        'discord-login',
      ].map((phase) => [phase, 'number']),
    );
    const url = new URL(String(invite?.json?.['url']));
    expect(url.searchParams.get('client_id')).toBe(discord.applicationId);
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    expect(Number(url.searchParams.get('permissions'))).toBeGreaterThan(0);
  });

  it('resumes after 4000 and answers the mention sent while it was away', async () => {
    await waitForTurn(bot, mention('hello', 'Hi there!'), TURN_CEILING_MS);
    const logged = closeLogged(4000);
    const resumed = discord.waits.gateway('resumed', { timeoutMs: TURN_CEILING_MS });
    discord.gateway.closeConnections(4000);
    const missed = mention('did you miss this?', 'Not at all.');
    expect((await logged).json?.['next']).toBe('resume');
    await resumed;
    await waitForTurn(bot, missed, TURN_CEILING_MS);
    expect(lastReply()).toBe('Not at all.');
  });

  it('resumes after an abnormal close (1006) and loses nothing', async () => {
    const logged = closeLogged(1006);
    const resumed = discord.waits.gateway('resumed', { timeoutMs: TURN_CEILING_MS });
    discord.gateway.dropConnections();
    const missed = mention('still there?', 'Still here.');
    await logged;
    await resumed;
    await waitForTurn(bot, missed, TURN_CEILING_MS);
    expect(lastReply()).toBe('Still here.');
  });

  it('starts a fresh session after 1000 and backfills the mention sent in the gap', async () => {
    const logged = closeLogged(1000);
    const identified = discord.waits.gateway('identified', { timeoutMs: TURN_CEILING_MS });
    // The start read the channels too: only this session's backfill counts here.
    const earlier = new Set(bot.logs());
    discord.gateway.closeConnections(1000);
    // The session is gone: Discord never dispatches this one to the bot.
    const missed = mention('are you back?', 'Back, and I saw your message.');
    expect((await logged).json?.['next']).toBe('reconnect');
    await identified;
    await waitForTurn(bot, missed, TURN_CEILING_MS);
    expect(lastReply()).toBe('Back, and I saw your message.');
    const backfill = await bot.waitForLog(
      (line) => !earlier.has(line) && /backfilled messages/.test(line.text),
      { timeoutMs: TURN_CEILING_MS },
    );
    expect(backfill.json?.['messages']).toBeGreaterThanOrEqual(1);
  });

  it('reads a channel again when the backfill meets a 5xx, and answers the mention of the gap', async () => {
    const identified = discord.waits.gateway('identified', { timeoutMs: TURN_CEILING_MS });
    discord.gateway.closeConnections(1000);
    const missed = mention('did the hiccup eat this?', 'No, I read the channel again.');
    // Every attempt of the backfill's first read (discord.js's own retries too) meets a 503.
    discord.faults.failRoute({
      method: 'GET',
      route: `/channels/${world.channel.id}/messages`,
      status: 503,
      times: 4,
    });
    await identified;
    await bot.waitForLog(/backfill of a channel failed: read again later/, {
      timeoutMs: TURN_CEILING_MS,
    });
    await waitForTurn(bot, missed, TURN_CEILING_MS);
    expect(lastReply()).toBe('No, I read the channel again.');
  });

  it('backfills after a RESUME that Discord refuses (op 9, not resumable)', async () => {
    discord.gateway.rejectNextResume();
    const identified = discord.waits.gateway('identified', { timeoutMs: TURN_CEILING_MS });
    discord.gateway.closeConnections(4000);
    const missed = mention('one more?', 'One more answer.');
    await identified;
    await waitForTurn(bot, missed, TURN_CEILING_MS);
    expect(lastReply()).toBe('One more answer.');
    // Answered once: the backfill and any replay never double a reply.
    const replies = botMessagesIn(discord, world.channel.id).filter(
      (message) => message.content === 'One more answer.',
    );
    expect(replies).toHaveLength(1);
  });

  it('holds messages backfilled after a fresh session to the bot-loop limit, as live ones', async () => {
    await commandsRegistered(discord, bot);
    const robo = discord.createUser({ username: 'robo', bot: true });
    discord.addMember({ guildId: world.guild.id, userId: robo.id });
    await discord
      .invokeSlashCommand({
        userId: world.guild.ownerId,
        channelId: world.channel.id,
        command: 'config',
        subcommand: 'answer-bots',
        options: { enabled: true },
      })
      .waitForOriginal();
    llm.handle(() => textScript('Beep.'));
    const fromRobo = (content: string) =>
      discord.postMessage({
        authorId: robo.id,
        channelId: world.channel.id,
        content: `<@${discord.botUserId}> ${content}`,
      }).id;
    await waitForTurn(bot, fromRobo('one'), TURN_CEILING_MS);
    await waitForTurn(bot, fromRobo('two'), TURN_CEILING_MS);
    const isBackfill = (line: { text: string }) => /backfilled messages/.test(line.text);
    const earlier = new Set(bot.logs().filter(isBackfill));
    const backfilled = bot.waitForLog((line) => isBackfill(line) && !earlier.has(line), {
      timeoutMs: TURN_CEILING_MS,
    });
    discord.gateway.closeConnections(1000);
    // Sent in the gap: only the backfill brings them; the first is the third reply in a row.
    const [third, fourth] = [fromRobo('three'), fromRobo('four')];
    await backfilled;
    await waitForTurn(bot, third, TURN_CEILING_MS);
    // A person's message after them is answered (and resets the count) in channel order.
    await waitForTurn(bot, mention('and me?', 'Yes, you.'), TURN_CEILING_MS);
    const answered = (messageId: string) =>
      botMessagesIn(discord, world.channel.id).some(
        (message) => message.message_reference?.message_id === messageId,
      );
    expect([answered(third), answered(fourth)]).toEqual([true, false]);
    llm.handle(undefined);
  });

  it('answers, at start, a mention sent while the bot was stopped', async () => {
    await waitForTurn(bot, mention('before the restart', 'Here before.'), TURN_CEILING_MS);
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    // No process is connected: Discord stores the message and dispatches it to no one.
    const missed = mention('anyone home?', 'Back, and I saw it.');
    const earlier = new Set(bot.logs());
    bot.restart();
    await bot.waitUntilConnected({ timeoutMs: START_CEILING_MS });
    await waitForTurn(bot, missed, TURN_CEILING_MS);
    expect(lastReply()).toBe('Back, and I saw it.');
    const backfill = await bot.waitForLog(
      (line) => !earlier.has(line) && /backfilled messages/.test(line.text),
      { timeoutMs: TURN_CEILING_MS },
    );
    expect(backfill.json?.['messages']).toBeGreaterThanOrEqual(1);
  });
  it('answers, at start, a mention sent while the bot was stopped in a channel it had never seen', async () => {
    // Made before the stop: the next start hears of it (and of its last message) from Discord.
    const quiet = discord.createChannel({ guildId: world.guild.id, name: 'quiet' });
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    llm.enqueue(textScript('Found you in the quiet channel.'));
    const missed = discord.postMessage({
      authorId: world.bob.id,
      channelId: quiet.id,
      content: `<@${discord.botUserId}> anyone in here?`,
    }).id;
    bot.restart();
    await bot.waitUntilConnected({ timeoutMs: START_CEILING_MS });
    await waitForTurn(bot, missed, TURN_CEILING_MS);
    expect(botMessagesIn(discord, quiet.id).at(-1)?.content).toBe(
      'Found you in the quiet channel.',
    );
  });

  it('answers once a mention owed from the downtime that a live reply already answered', async () => {
    // Bob: alice has used her turns of this minute (the member rate limit) in the tests above.
    const fromBob = mentionsFrom(world.bob.id);
    llm.enqueue(textScript('Here.'));
    await waitForTurn(bot, fromBob('before a second restart'), TURN_CEILING_MS);
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    const owedText = 'which of the two moons is bigger?';
    const owed = fromBob(owedText);
    // The start's backfill read fails once: the owed mention is judged a second later, after
    // the live one below has started its turn, whose model sees the owed one unanswered.
    const earlier = await restartWithFailingReads(4);
    await bot.waitForLog((line) => !earlier.has(line) && /read again later/.test(line.text), {
      timeoutMs: TURN_CEILING_MS,
    });
    llm.handle(() => textScript('The bigger moon is Ganymede, and hello to you both.'));
    fromBob('and hello!');
    // Settled without a turn of its own, or (had it been judged before the live turn began)
    // answered together with it: either way one model call carries it.
    await bot.waitForLog(
      (line) =>
        !earlier.has(line) &&
        (/answered in passing/.test(line.text) ||
          (line.json?.['msg'] === 'turn finished' && line.json['messageId'] === owed)),
      { timeoutMs: TURN_CEILING_MS },
    );
    const asked = llm.requests.filter((request) => JSON.stringify(request.body).includes(owedText));
    expect(asked).toHaveLength(1);
    const repliesToOwed = botMessagesIn(discord, world.channel.id).filter(
      (message) => message.message_reference?.message_id === owed,
    );
    expect(repliesToOwed).toHaveLength(0);
    llm.handle(undefined);
  });

  it('answers a mention whose gateway event comes after a read of its channel returned it', async () => {
    const fromDave = newMember('dave');
    const late = discord.createChannel({ guildId: world.guild.id, name: 'late-event' });
    const lateText = 'is anyone reading the late channel?';
    discord.gateway.holdDispatches(
      (type, data) => type === 'MESSAGE_CREATE' && JSON.stringify(data).includes(lateText),
    );
    llm.enqueue(textScript('First things first.'));
    llm.enqueue(textScript('Yes, I read it.'));
    const first = fromDave('first things first?', late.id);
    // Its event held back: the first turn's read of the new channel returns it before it.
    const second = fromDave(lateText, late.id);
    await waitForTurn(bot, first, TURN_CEILING_MS);
    discord.gateway.releaseDispatches();
    await waitForTurn(bot, second, TURN_CEILING_MS);
    expect(
      botMessagesIn(discord, late.id).find(
        (message) => message.message_reference?.message_id === second,
      )?.content,
    ).toBe('Yes, I read it.');
  });

  it('does not answer again, after a SIGKILL, a mention of the downtime that a cut reply carried', async () => {
    const fromCarol = newMember('carol');
    expect(await bot.stop()).toEqual({ code: 0, signal: null });
    const owedText = 'how many rings does Saturn have?';
    const owed = fromCarol(owedText);
    // The start's backfill reads fail three times (four requests each, discord.js's retries
    // too): its next read is ten seconds away, and the live mention below is heard first.
    const earlier = await restartWithFailingReads(12);
    const failedReads = () =>
      bot.logs().filter((line) => !earlier.has(line) && /read again later/.test(line.text)).length;
    await bot.waitForLog(() => failedReads() >= 3, { timeoutMs: TURN_CEILING_MS });
    // The live mention's reply carries the owed one (its model sees it unanswered); the
    // process dies after the reply's first block is delivered and before its end.
    const gate = createGate();
    const delivered = 'Saturn has seven main rings. And hello again.';
    llm.enqueue({
      steps: [
        { type: 'text', text: `${delivered}\n\n` },
        { type: 'hold', gate },
        { type: 'text', text: 'Never sent.' },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const shown = discord.waits.message(
      { channelId: world.channel.id, where: (message) => message.content.includes(delivered) },
      { timeoutMs: TURN_CEILING_MS },
    );
    const live = fromCarol('and hello again!');
    await shown;
    await bot.kill();
    gate.release();
    const restarted = new Set(bot.logs());
    bot.restart();
    await bot.waitUntilConnected({ timeoutMs: START_CEILING_MS });
    await bot.waitForLog(
      (line) => !restarted.has(line) && /a reply was cut off by a restart/.test(line.text),
      { timeoutMs: TURN_CEILING_MS },
    );
    const settled = await bot.waitForLog(
      (line) => !restarted.has(line) && /carried this message: answered in passing/.test(line.text),
      { timeoutMs: TURN_CEILING_MS },
    );
    expect(settled.json).toMatchObject({ messageId: owed, carriedBy: live });
    const asked = llm.requests.filter((request) => JSON.stringify(request.body).includes(owedText));
    expect(asked).toHaveLength(1);
    const replies = botMessagesIn(discord, world.channel.id);
    expect(replies.filter((message) => message.message_reference?.message_id === owed)).toEqual([]);
    // The live mention's member is told, with Retry, that the reply was cut off.
    expect(
      replies.some(
        (message) =>
          message.message_reference?.message_id === live && /restarting/.test(message.content),
      ),
    ).toBe(true);
  });
});
