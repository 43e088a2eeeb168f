import type { AssistantMessage, ChatRequest } from '../../../src/core/chat.ts';
import { ProviderError } from '../../../src/core/errors.ts';
import { silentLogger } from '../../../src/core/logger.ts';
import type { ChatModel } from '../../../src/core/provider.ts';
import type { StreamPart } from '../../../src/core/stream-part.ts';
import { AnthropicChatModel } from '../../../src/providers/anthropic/anthropic-chat-model.ts';
import { GeminiChatModel } from '../../../src/providers/google/gemini-chat-model.ts';
import { ModelCatalog } from '../../../src/providers/model-catalog.ts';
import { OpenAIChatModel } from '../../../src/providers/openai/openai-chat-model.ts';
import {
  AssistantMessageBuilder,
  toolCallPartOf,
} from '../../../src/stream/turn/assistant-message.ts';
import type { LlmStandIn } from '../../support/llm-stand-in/llm-stand-in.ts';
import type { StandInVendor } from '../../support/llm-stand-in/script.ts';

/** Each real adapter, built against the stand-in's base URL for its vendor. */
export interface AdapterUnderTest {
  vendor: StandInVendor;
  /** A model id the catalogue knows for this vendor. */
  model: string;
  create(standIn: LlmStandIn): ChatModel;
}

const catalog = new ModelCatalog();

export const ADAPTERS: readonly AdapterUnderTest[] = [
  {
    vendor: 'openai',
    model: 'gpt-5.4-mini',
    create: (standIn) =>
      new OpenAIChatModel({
        apiKey: 'sk-test-openai',
        baseUrl: standIn.openAIBaseUrl,
        catalog,
        logger: silentLogger,
      }),
  },
  {
    vendor: 'anthropic',
    model: 'claude-sonnet-5-5',
    create: (standIn) =>
      new AnthropicChatModel({
        apiKey: 'sk-ant-test',
        baseUrl: standIn.anthropicBaseUrl,
        catalog,
        logger: silentLogger,
      }),
  },
  {
    vendor: 'google',
    model: 'gemini-3.8-flash',
    create: (standIn) =>
      new GeminiChatModel({
        apiKey: 'AIza-test',
        baseUrl: standIn.geminiBaseUrl,
        catalog,
        logger: silentLogger,
      }),
  },
];

export function userRequest(
  model: string,
  text = 'Hello there',
  extra: Partial<ChatRequest> = {},
): ChatRequest {
  return {
    model,
    system: 'You are Tomo, a friendly companion.',
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    ...extra,
  };
}

export interface Collected {
  parts: StreamPart[];
  /** What `stream` threw before its first part, if anything. */
  thrown: unknown;
}

export async function collect(
  model: ChatModel,
  request: ChatRequest,
  signal: AbortSignal = new AbortController().signal,
): Promise<Collected> {
  const parts: StreamPart[] = [];
  try {
    for await (const part of model.stream(request, signal)) parts.push(part);
  } catch (error) {
    return { parts, thrown: error };
  }
  return { parts, thrown: undefined };
}

export function textOf(parts: readonly StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

export function reasoningOf(parts: readonly StreamPart[]): string {
  return parts.map((part) => (part.type === 'reasoning-delta' ? part.text : '')).join('');
}

/**
 * The assistant message a turn keeps of this call (as the model step builds it), which goes
 * back to the vendor in the next request of a tool loop.
 */
export function assistantMessageOf(parts: readonly StreamPart[]): AssistantMessage {
  const builder = new AssistantMessageBuilder();
  for (const part of parts) {
    if (part.type === 'text-delta') builder.addText(part.text);
    if (part.type === 'reasoning-delta') builder.addReasoning(part.text, part.providerMetadata);
    if (part.type === 'tool-call') builder.addToolCall(toolCallPartOf(part));
  }
  const message = builder.build();
  if (message === undefined) throw new Error('the call produced no text, reasoning or tool call');
  return message;
}

export function thrownProviderError(collected: Collected): ProviderError {
  if (!(collected.thrown instanceof ProviderError)) {
    throw new Error(`expected a thrown ProviderError, got ${String(collected.thrown)}`);
  }
  return collected.thrown;
}
