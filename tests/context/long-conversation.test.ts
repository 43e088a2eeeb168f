/**
 * A scripted 300-turn conversation in one channel through the real bot process, the
 * loopback Discord and the LLM stand-in, on a 4k-token context window. At turn 300 the request
 * still holds the constraint of turn 5 and the (auto-)pinned turn 2, not the small talk of
 * turn 100; no request exceeds the budget; the history is chronological.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/core/chat.ts';
import { ModelCatalog } from '../../src/providers/model-catalog.ts';
import { createTokenCounter, loadTokenizer } from '../../src/providers/token-counter.ts';
import type { RecordedRequest } from '../support/llm-stand-in/recorded-request.ts';
import {
  createWorld,
  startHarness,
  TEST_MODEL,
  waitForTurn,
  type BotHarness,
} from '../bot/support/bot-harness.ts';
import { chatRequests } from '../bot/support/chat-requests.ts';
import { botDatabase } from './support/bot-database.ts';

const TURNS = 300;
const MEMBERS = 30;
const CATALOG = {
  models: { [TEST_MODEL]: { contextWindow: 4096, maxOutputTokens: 512, tools: false } },
};
const PINNED = 'Our project codename is BLUEFIN.';
const CONSTRAINT = 'Always answer in French. My dog is called Mochi.';
const SMALL_TALK = 'lol nice';
const SUMMARY_PROMPT = 'You maintain the rolling summary';
/** The background job's default cadence: one call per 20 new stored turns at most. */
const SUMMARY_EVERY_TURNS = 20;
const isSummaryCall = (request: RecordedRequest) => request.systemText.includes(SUMMARY_PROMPT);
const summaryCalls: RecordedRequest[] = [];

function userText(turn: number): string {
  if (turn === 2) return PINNED;
  if (turn === 5) return CONSTRAINT;
  if (turn === 100) return SMALL_TALK;
  return `Question ${turn}: tell me one more thing about the history of green tea in Uji.`;
}

/** The OpenAI request body as the context's chat messages (text parts only). */
function messagesOf(request: RecordedRequest): { system: string; messages: ChatMessage[] } {
  const body = request.body as {
    messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
  };
  const texts = (content: string | Array<{ text?: string }>) =>
    typeof content === 'string' ? [content] : content.map((part) => part.text ?? '');
  const messages = body.messages
    .filter((message) => message.role !== 'system')
    .map(
      (message) =>
        ({
          role: message.role,
          content: texts(message.content).map((text) => ({ type: 'text', text })),
        }) as ChatMessage,
    );
  return { system: request.systemText, messages };
}

describe('a 300-turn conversation on a 4k window', () => {
  let harness: BotHarness<ReturnType<typeof createWorld> & { members: Array<{ id: string }> }>;
  const catalogDirectory = mkdtempSync(path.join(tmpdir(), 'catalog-'));

  let database: Awaited<ReturnType<typeof botDatabase>> | undefined;

  beforeAll(async () => {
    database = await botDatabase();
    const catalogFile = path.join(catalogDirectory, 'catalog.json');
    writeFileSync(catalogFile, JSON.stringify(CATALOG));
    harness = await startHarness({
      setup: (discord) => {
        const world = createWorld(discord);
        // Members take turns: each stays under the default 10 turns per member per minute.
        const members = Array.from({ length: MEMBERS }, (_, index) => {
          const member = discord.createUser({ username: `member${index}` });
          discord.addMember({ guildId: world.guild.id, userId: member.id });
          return member;
        });
        return { ...world, members };
      },
      env: { MODEL_CATALOG: catalogFile, ...database.env },
      connectTimeoutMs: 150_000,
    });
    harness.llm.handle((request) => {
      if (isSummaryCall(request)) {
        summaryCalls.push(request);
        return {
          steps: [
            {
              type: 'text',
              text: `SUMMARY-${summaryCalls.length}: member5 wants French; dog Mochi.`,
            },
            { type: 'usage', inputTokens: 300, outputTokens: 20 },
            { type: 'finish', reason: 'stop' },
          ],
        };
      }
      return {
        steps: [
          { type: 'text', text: `D'accord, réponse ${request.id}.` },
          { type: 'usage', inputTokens: 100, outputTokens: 5 },
          { type: 'finish', reason: 'stop' },
        ],
      };
    });
  }, 200_000);
  afterAll(async () => {
    await harness.dispose();
    await database?.drop();
    rmSync(catalogDirectory, { recursive: true, force: true });
  });

  it('keeps the constraint and the pin, drops small talk, stays in budget, in order', async () => {
    const { discord, bot, llm, world } = harness;
    const moderator = discord.createRole({
      guildId: world.guild.id,
      name: 'moderators',
      permissions: PermissionFlagsBits.ManageMessages,
    });
    for (let turn = 1; turn <= TURNS; turn += 1) {
      const posted = discord.postMessage({
        authorId: world.members[turn % MEMBERS]?.id ?? world.alice.id,
        channelId: world.channel.id,
        content: `<@${discord.botUserId}> ${userText(turn)}`,
      });
      await waitForTurn(bot, posted.id, 30_000);
    }
    const requests = chatRequests(llm.requests).filter((request) => !isSummaryCall(request));
    expect(requests.length).toBeGreaterThanOrEqual(TURNS);
    const last = requests.at(-1) as RecordedRequest;
    const lastText = JSON.stringify(last.body);
    expect(last.lastUserText).toContain('Question 300');
    expect(lastText).toContain(CONSTRAINT);
    expect(lastText).toContain(PINNED);
    expect(lastText).not.toContain(SMALL_TALK);
    expect(lastText).toContain('Question 299');

    // Chronological: the question numbers in the history only ever increase.
    const numbers = [...lastText.matchAll(/Question (\d+):/g)].map((match) => Number(match[1]));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(numbers.length).toBeLessThan(TURNS / 2);

    const info = new ModelCatalog(CATALOG).lookup('openai', TEST_MODEL);
    await loadTokenizer(info);
    const counter = createTokenCounter(info);
    const budget = info.contextWindow - info.maxOutputTokens;
    for (const request of requests) {
      const { system, messages } = messagesOf(request);
      expect(counter.countRequest({ system, messages, tools: [] })).toBeLessThanOrEqual(budget);
    }
    console.log(
      `turn 300: ${numbers.length} earlier questions in the request; ` +
        `largest request ${Math.max(
          ...requests.map((request) => {
            const { system, messages } = messagesOf(request);
            return counter.countRequest({ system, messages, tools: [] });
          }),
        )} of ${budget} tokens`,
    );

    // The rolling summary: built incrementally, at most one call per N stored turns, sent
    // with later requests as a labelled section.
    expect(summaryCalls.length).toBeGreaterThanOrEqual(2);
    expect(summaryCalls.length).toBeLessThanOrEqual((TURNS * 2) / SUMMARY_EVERY_TURNS);
    summaryCalls.slice(1).forEach((call, index) => {
      expect(call.lastUserText).toContain(`<previous-summary>\nSUMMARY-${index + 1}:`);
    });
    expect(last.systemText).toMatch(/<conversation-summary>\nSUMMARY-\d+: member5 wants French/);
    // /memory summary shows it to a member of the channel.
    const shown = await discord
      .invokeSlashCommand({
        userId: world.alice.id,
        channelId: world.channel.id,
        command: 'memory',
        subcommand: 'summary',
      })
      .waitForOriginal();
    expect(shown.embeds?.[0]?.description).toMatch(/^SUMMARY-\d+: member5 wants French/);

    // /reset clears it: the next request carries neither the summary nor the old turns.
    discord.build.updateMember({
      guildId: world.guild.id,
      userId: world.alice.id,
      roleIds: [moderator.id],
    });
    await discord
      .invokeSlashCommand({ userId: world.alice.id, channelId: world.channel.id, command: 'reset' })
      .waitForOriginal();
    const fresh = discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> hello again`,
    });
    await waitForTurn(bot, fresh.id, 30_000);
    const afterReset = chatRequests(llm.requests)
      .filter((request) => !isSummaryCall(request))
      .at(-1);
    expect(afterReset?.lastUserText).toContain('hello again');
    expect(afterReset?.systemText).not.toContain('conversation-summary');
    expect(JSON.stringify(afterReset?.body)).not.toContain('Question 299');
    const gone = await discord
      .invokeSlashCommand({
        userId: world.alice.id,
        channelId: world.channel.id,
        command: 'memory',
        subcommand: 'summary',
      })
      .waitForOriginal();
    expect(gone.content).toMatch(/^There is no summary of this channel yet/);
  }, 900_000);
});
