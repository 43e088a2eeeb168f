import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatMessage, ChatRequest, ImagePart, ToolSpec } from '../../core/chat.ts';
import type { ModelInfo } from '../model-catalog.ts';
import { joinNeighbouringTexts, joinTexts } from '../text-parts.ts';

export interface OpenAIRequestOptions {
  /**
   * OpenAI's own API wants `max_completion_tokens` (reasoning models reject `max_tokens`), while
   * many compatible servers (Ollama, llama.cpp, older vLLM) only read `max_tokens`.
   */
  officialApi: boolean;
  model: ModelInfo;
}

/** The chat.completions streaming request for one ChatRequest. */
export function toOpenAIRequest(
  request: ChatRequest,
  options: OpenAIRequestOptions,
): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== '') messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) messages.push(...toOpenAIMessages(message));
  const body: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages,
    stream: true,
    // Without this the stream carries no token counts at all.
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) body.tools = toOpenAITools(request.tools);
  if (request.temperature !== undefined && options.model.temperature) {
    body.temperature = request.temperature;
  }
  if (request.maxOutputTokens !== undefined) {
    if (options.officialApi) body.max_completion_tokens = request.maxOutputTokens;
    else body.max_tokens = request.maxOutputTokens;
  }
  return body;
}

export function toOpenAITools(tools: readonly ToolSpec[]): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}

function toOpenAIMessages(message: ChatMessage): ChatCompletionMessageParam[] {
  switch (message.role) {
    case 'user': {
      if (!message.content.some((part) => part.type === 'image')) {
        return [{ role: 'user', content: joinTexts(textsOf(message.content)) }];
      }
      const parts: ChatCompletionContentPart[] = message.content.map((part) =>
        part.type === 'text'
          ? { type: 'text', text: part.text }
          : { type: 'image_url', image_url: { url: imageUrl(part) } },
      );
      const content = joinNeighbouringTexts(parts, {
        textOf: (part) => (part.type === 'text' ? part.text : undefined),
        withText: (text): ChatCompletionContentPart => ({ type: 'text', text }),
      });
      return [{ role: 'user', content }];
    }
    case 'assistant': {
      // Reasoning is not sent back: chat.completions has no field for it, and DeepSeek-style
      // servers reject `reasoning_content` in history.
      const text = joinTexts(textsOf(message.content));
      const toolCalls = message.content.flatMap((part) =>
        part.type === 'tool-call'
          ? [
              {
                id: part.id,
                type: 'function' as const,
                function: { name: part.name, arguments: JSON.stringify(part.input ?? {}) },
              },
            ]
          : [],
      );
      if (text === '' && toolCalls.length === 0) return [];
      const assistant: ChatCompletionAssistantMessageParam = {
        role: 'assistant',
        content: text === '' ? null : text,
      };
      if (toolCalls.length > 0) assistant.tool_calls = toolCalls;
      return [assistant];
    }
    case 'tool':
      return message.content.map((result) => ({
        role: 'tool',
        tool_call_id: result.callId,
        content: result.isError ? `Error: ${result.output}` : result.output,
      }));
  }
}

function textsOf(content: ReadonlyArray<{ type: string; text?: string }>): string[] {
  return content.flatMap((part) =>
    part.type === 'text' && part.text !== undefined ? [part.text] : [],
  );
}

function imageUrl(image: ImagePart): string {
  if (image.data !== undefined) return `data:${image.mediaType};base64,${image.data}`;
  return image.url ?? '';
}
