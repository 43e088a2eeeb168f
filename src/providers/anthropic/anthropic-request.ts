import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  AssistantMessage,
  ChatMessage,
  ChatRequest,
  ImagePart,
  ToolSpec,
} from '../../core/chat.ts';
import type { ModelInfo } from '../model-catalog.ts';
import { joinNeighbouringTexts } from '../text-parts.ts';
import { readAnthropicMetadata } from './anthropic-metadata.ts';

/** Anthropic requires `max_tokens`; this is used when the caller sets none (capped by the model). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;

type Base64MediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/**
 * The Messages streaming request for one ChatRequest. `temperature` is not sent: the current API
 * version has no sampling parameters (Claude 5 models answer 400 to one).
 */
export function toAnthropicRequest(
  request: ChatRequest,
  model: ModelInfo,
): MessageCreateParamsStreaming {
  const body: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: Math.min(
      request.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
      model.maxOutputTokens,
    ),
    messages: toAnthropicMessages(request.messages),
    stream: true,
    // Marks the last cacheable block: the next turn of the conversation (or of a tool loop)
    // reads the persona and history from the prompt cache at the cached-input price.
    cache_control: { type: 'ephemeral' },
  };
  if (request.system !== '') body.system = request.system;
  if (request.tools.length > 0) body.tools = toAnthropicTools(request.tools);
  return body;
}

export function toAnthropicTools(tools: readonly ToolSpec[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
}

/**
 * Converts history. Tool results become `tool_result` blocks in a user turn; consecutive turns
 * of the same role are merged (a tool result and the next user message share one turn, results
 * first, as the API requires). Neighbouring text blocks become one, each former block starting
 * a line (the model would otherwise read them run together).
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const converted: Array<{ role: 'user' | 'assistant'; content: ContentBlockParam[] }> = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = toBlocks(message);
    if (content.length === 0) continue;
    const previous = converted.at(-1);
    if (previous?.role === role) previous.content.push(...content);
    else converted.push({ role, content });
  }
  return converted.map(({ role, content }) => ({
    role,
    content: joinNeighbouringTexts(content, {
      textOf: (block) => (block.type === 'text' ? block.text : undefined),
      withText: (text): TextBlockParam => ({ type: 'text', text }),
    }),
  }));
}

function toBlocks(message: ChatMessage): ContentBlockParam[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap((part): ContentBlockParam[] => {
        if (part.type === 'image') return [imageBlock(part)];
        return part.text === '' ? [] : [{ type: 'text', text: part.text } satisfies TextBlockParam];
      });
    case 'assistant':
      return assistantBlocks(message);
    case 'tool':
      return message.content.map((result) => ({
        type: 'tool_result',
        tool_use_id: result.callId,
        content: result.output,
        is_error: result.isError,
      }));
  }
}

function assistantBlocks(message: AssistantMessage): ContentBlockParam[] {
  return message.content.flatMap((part): ContentBlockParam[] => {
    switch (part.type) {
      case 'text':
        return part.text === '' ? [] : [{ type: 'text', text: part.text }];
      case 'reasoning': {
        // Only Anthropic's own signed thinking can go back; anything else (another vendor's
        // reasoning, an unsigned fragment) would be rejected, and is not needed.
        const metadata = readAnthropicMetadata(part.providerMetadata);
        if (metadata?.redactedData !== undefined) {
          return [{ type: 'redacted_thinking', data: metadata.redactedData }];
        }
        if (metadata?.signature !== undefined) {
          return [{ type: 'thinking', thinking: part.text, signature: metadata.signature }];
        }
        return [];
      }
      case 'tool-call':
        return [{ type: 'tool_use', id: part.id, name: part.name, input: part.input ?? {} }];
    }
  });
}

function imageBlock(image: ImagePart): ImageBlockParam {
  if (image.data !== undefined) {
    return {
      type: 'image',
      source: { type: 'base64', media_type: image.mediaType as Base64MediaType, data: image.data },
    };
  }
  return { type: 'image', source: { type: 'url', url: image.url ?? '' } };
}
