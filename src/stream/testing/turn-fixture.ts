import type { ChatRequest } from '../../core/chat.ts';
import type { ToolContext } from '../../core/tool.ts';
import { StreamOrchestrator, type TurnRun } from '../turn/stream-orchestrator.ts';
import type { StreamOptions } from '../turn/stream-options.ts';
import type { TurnEvent } from '../turn/tool-round.ts';
import { FakeToolExecutor, type ToolHandler } from './fake-tool-executor.ts';
import { ManualClock } from './manual-clock.ts';
import { RecordingJournal } from './recording-journal.ts';
import { RecordingSink } from './recording-sink.ts';
import { ScriptedChatModel, type ScriptedCall } from './scripted-chat-model.ts';

export const TOOL_CONTEXT: ToolContext = {
  scopeId: 'guild-1',
  guildId: 'guild-1',
  channelId: 'channel-1',
  userId: 'alice',
  messageId: 'trigger-1',
  turnId: 'turn-1',
  memberPermissions: undefined,
  locale: 'en-US',
};

export const BASE_REQUEST: ChatRequest = {
  model: 'model-1',
  system: 'You are Tomo.',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi!' }] }],
  tools: [],
};

/** Everything a turn test touches: a scripted model, fake tools, recording sink and journal. */
export function turnFixture(options: {
  scripts: ScriptedCall[];
  tools?: Record<string, ToolHandler>;
  streamOptions?: Partial<StreamOptions>;
  clock?: ManualClock;
}) {
  const clock = options.clock ?? new ManualClock();
  const model = new ScriptedChatModel(options.scripts);
  const tools = new FakeToolExecutor(options.tools ?? {});
  const sink = new RecordingSink();
  const journal = new RecordingJournal();
  const events: TurnEvent[] = [];
  const orchestrator = new StreamOrchestrator({
    journal,
    clock,
    random: () => 0.5,
    options: options.streamOptions,
  });
  const run = (overrides: Partial<TurnRun> = {}) =>
    orchestrator.run({
      turnId: 'turn-1',
      model,
      request: { ...BASE_REQUEST, tools: tools.specs() },
      tools,
      toolContext: TOOL_CONTEXT,
      sink,
      humanizerDegree: 1,
      deliveryMode: 'messages',
      onEvent: (event) => events.push(event),
      ...overrides,
    });
  return { clock, model, tools, sink, journal, events, orchestrator, run };
}
