/**
 * The tool loop below the bot, with nothing faked but the model's HTTP server: a real
 * StreamOrchestrator, the real ProviderFactory pointed at the LLM stand-in, and the real
 * registry from createTools over a test database. Per vendor, the model calls a built-in tool,
 * the registry runs and audits it, the result goes back in that vendor's wire format, and the
 * model's answer reaches the sink. (tests/providers/tool-loop.test.ts covers the adapters alone.)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseTurnJournal } from '../../src/bot/turns/database-turn-journal.ts';
import type { ToolResultPart } from '../../src/core/chat.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { ProviderId } from '../../src/core/provider.ts';
import type { ToolContext } from '../../src/core/tool.ts';
import { listMemories } from '../../src/db/memory-repository.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { toolCallsOfTurn } from '../../src/db/tool-call-repository.ts';
import { recentTurns } from '../../src/db/turn-repository.ts';
import { ProviderFactory } from '../../src/providers/provider-factory.ts';
import { StreamOrchestrator, type TurnOutcome } from '../../src/stream/turn/stream-orchestrator.ts';
import { ManualClock } from '../../src/stream/testing/manual-clock.ts';
import { RecordingSink } from '../../src/stream/testing/recording-sink.ts';
import { createTools, type Tools } from '../../src/tools/create-tools.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import type { RecordedRequest } from '../support/llm-stand-in/recorded-request.ts';
import { textScript, type Script } from '../support/llm-stand-in/script.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';
import { noDiscordActions } from './support/no-discord-actions.ts';
import { VENDOR_WIRES } from './support/vendor-tool-wire.ts';

const GUILD = '110000000000000001';
const CHANNEL = '310000000000000001';
const BOT_USER = '900000000000000009';
/** One member per vendor, so each vendor's memories are its own. */
const MEMBER: Record<ProviderId, string> = {
  openai: '210000000000000001',
  anthropic: '210000000000000002',
  google: '210000000000000003',
};
const VENDORS = (['openai', 'anthropic', 'google'] as const).map((vendor) => ({ vendor }));

/** The message being answered: from this vendor's member, in the guild. */
function memberContext(vendor: ProviderId, turnId: string): ToolContext {
  return {
    scopeId: GUILD,
    guildId: GUILD,
    channelId: CHANNEL,
    userId: MEMBER[vendor],
    messageId: '410000000000000001',
    turnId,
    memberPermissions: '0',
    locale: 'en-US',
  };
}

/** The model asks for one tool call and finishes its step for it. */
function toolCallScript(call: { id: string; name: string; arguments: string }): Script {
  return {
    steps: [
      { type: 'tool-calls', calls: [call] },
      { type: 'usage', inputTokens: 40, outputTokens: 12 },
      { type: 'finish', reason: 'tool_calls' },
    ],
  };
}

describe.each(testBackends())('a tool loop through the registry on $name', (backend) => {
  let database: TestDatabase;
  let standIn: LlmStandIn;
  let tools: Tools;
  let factory: ProviderFactory;
  let orchestrator: StreamOrchestrator;
  const clock = new ManualClock();

  beforeAll(async () => {
    [database, standIn] = await Promise.all([backend.open(), LlmStandIn.start()]);
    await database.migrate();
    await ensureScope(database.db, GUILD, 'guild');
    tools = await createTools({
      db: database.db,
      clock,
      logger: silentLogger,
      discordActions: noDiscordActions,
      reminderDelivery: { deliver: () => Promise.resolve() },
      mcpServers: [],
    });
    factory = new ProviderFactory({
      defaults: {
        defaultProvider: 'openai',
        defaultModel: undefined,
        providerKeys: { openai: 'sk-test', anthropic: 'sk-ant-test', google: 'AIza-test' },
        providerBaseUrls: {
          openai: standIn.openAIBaseUrl,
          anthropic: standIn.anthropicBaseUrl,
          google: standIn.geminiBaseUrl,
        },
      },
      clock,
      random: () => 0.5,
    });
    orchestrator = new StreamOrchestrator({
      journal: new DatabaseTurnJournal({
        db: database.db,
        botUserId: BOT_USER,
        botName: 'Tomo',
        instanceId: 'tool-loop-test',
      }),
      clock,
      random: () => 0.5,
    });
  });
  afterAll(async () => {
    await tools.close();
    await Promise.all([standIn.close(), database.dispose()]);
  });

  /** One turn as the bot runs it: the member's question, the model's tool call, its answer. */
  async function runTurn(
    vendor: ProviderId,
    scripts: Script[],
  ): Promise<{
    turnId: string;
    outcome: TurnOutcome;
    sink: RecordingSink;
    requests: RecordedRequest[];
  }> {
    const turnId = randomUUID();
    const sink = new RecordingSink();
    const model = factory.resolve({ provider: vendor, model: undefined, apiKey: undefined });
    const before = standIn.requests.length;
    standIn.enqueue(...scripts);
    const toolContext = memberContext(vendor, turnId);
    const outcome = await orchestrator.run({
      turnId,
      model: model.chatModel,
      request: {
        model: model.modelId,
        system: 'You are Tomo, a friendly companion.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'My cat is called Miso.' }] }],
        tools: tools.registry.specs(toolContext),
      },
      tools: tools.registry,
      toolContext,
      sink,
      humanizerDegree: 1,
      deliveryMode: 'messages',
    });
    return { turnId, outcome, sink, requests: standIn.requests.slice(before) };
  }

  describe.each(VENDORS)('with $vendor', ({ vendor }) => {
    const wire = VENDOR_WIRES[vendor];

    it('runs the tool the model called through the registry and delivers the answer', async () => {
      const { turnId, outcome, sink, requests } = await runTurn(vendor, [
        toolCallScript({
          id: 'call_1',
          name: 'remember_fact',
          arguments: '{"scope":"user","fact":"Their cat is called Miso."}',
        }),
        textScript('Miso is a lovely name. ', 'I will remember it!'),
      ]);

      expect(outcome).toMatchObject({ status: 'complete', error: undefined });
      expect(sink.messages).toEqual(['Miso is a lovely name. I will remember it!']);
      expect(outcome.messageIds).toEqual(['m1']);

      // The model was offered the registry's tools, and only those.
      const [first, second] = requests;
      expect(requests).toHaveLength(2);
      const offered = tools.registry.specs(memberContext(vendor, turnId)).map((spec) => spec.name);
      expect(wire.offeredToolNames(first?.body)).toEqual(offered);
      expect(offered).toContain('remember_fact');

      // The registry ran the tool: the memory is stored for the member and the call audited.
      const stored = await listMemories(database.db, GUILD, {
        kind: 'user',
        ownerId: MEMBER[vendor],
      });
      expect(stored).toMatchObject([
        { kind: 'user', authorId: MEMBER[vendor], content: 'Their cat is called Miso.' },
      ]);
      expect(await toolCallsOfTurn(database.db, turnId)).toMatchObject([
        { toolName: 'remember_fact', status: 'ok', scopeId: GUILD },
      ]);

      // The second request carries the call and its result in the vendor's own format.
      const result = toolResultOf(outcome);
      expect(result).toMatchObject({ callId: 'call_1', name: 'remember_fact', isError: false });
      expect(result.output).toBe(
        'Remembered as a personal memory of the person you are answering (1/20 used): Their cat is called Miso.',
      );
      expect(wire.toolResultIn(second?.body, 'call_1')).toEqual(wire.expectedToolResult(result));

      const [turn] = await recentTurns(database.db, CHANNEL, { limit: 1 });
      expect(turn).toMatchObject({
        id: turnId,
        status: 'complete',
        content: 'Miso is a lovely name. I will remember it!',
        discordMessageIds: ['m1'],
      });
    });

    it('answers invalid arguments with an error result the model reads, and the loop goes on', async () => {
      const memoriesOf = async () => [
        ...(await listMemories(database.db, GUILD, { kind: 'user', ownerId: MEMBER[vendor] })),
        ...(await listMemories(database.db, GUILD, { kind: 'server' })),
      ];
      const memoriesBefore = await memoriesOf();
      const { turnId, outcome, sink, requests } = await runTurn(vendor, [
        toolCallScript({
          id: 'call_bad',
          name: 'remember_fact',
          arguments: '{"scope":"everyone","fact":""}',
        }),
        textScript('Sorry, I could not save that.'),
      ]);

      expect(outcome.status).toBe('complete');
      expect(sink.messages).toEqual(['Sorry, I could not save that.']);
      expect(requests).toHaveLength(2);

      const result = toolResultOf(outcome);
      expect(result).toMatchObject({ callId: 'call_bad', isError: true });
      expect(result.output).toMatch(/^Invalid arguments for "remember_fact":/);
      expect(result.output).toContain('scope');
      expect(result.output).toContain('fact');
      expect(wire.toolResultIn(requests[1]?.body, 'call_bad')).toEqual(
        wire.expectedToolResult(result),
      );

      expect(await toolCallsOfTurn(database.db, turnId)).toMatchObject([
        { toolName: 'remember_fact', status: 'error' },
      ]);
      expect(await memoriesOf()).toEqual(memoriesBefore); // nothing was written
    });
  });
});

/** The one tool result of a turn, as the orchestrator handed it back to the model. */
function toolResultOf(outcome: TurnOutcome): ToolResultPart {
  const results = outcome.messages.flatMap((message) =>
    message.role === 'tool' ? message.content : [],
  );
  expect(results).toHaveLength(1);
  return results[0] as ToolResultPart;
}
