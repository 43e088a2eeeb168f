import type { Content, FunctionDeclaration, GenerateContentParameters, Part } from '@google/genai';
import type { AssistantMessage, ChatMessage, ChatRequest, ToolSpec } from '../../core/chat.ts';
import type { ModelInfo } from '../model-catalog.ts';
import { readThoughtSignature } from './gemini-metadata.ts';
import { joinNeighbouringTexts } from '../text-parts.ts';
import { toGeminiSchema } from './gemini-schema.ts';

/**
 * The generateContentStream parameters for one ChatRequest. Safety settings are left at
 * Google's defaults on purpose: the bot never weakens a vendor's safety filters.
 */
export function toGeminiRequest(
  request: ChatRequest,
  options: { model: ModelInfo; signal: AbortSignal },
): GenerateContentParameters {
  const { model, signal } = options;
  return {
    model: request.model,
    contents: toGeminiContents(request.messages),
    config: {
      abortSignal: signal,
      ...(request.system === '' ? {} : { systemInstruction: request.system }),
      ...(request.tools.length === 0
        ? {}
        : { tools: [{ functionDeclarations: toGeminiTools(request.tools) }] }),
      ...(request.temperature !== undefined && model.temperature
        ? { temperature: request.temperature }
        : {}),
      ...(request.maxOutputTokens === undefined
        ? {}
        : { maxOutputTokens: request.maxOutputTokens }),
      ...(model.reasoning ? { thinkingConfig: { includeThoughts: true } } : {}),
      // The tool loop, retries and resumption are ours: the SDK must not run its own.
      automaticFunctionCalling: { disable: true },
      automaticContinuation: false,
    },
  };
}

export function toGeminiTools(tools: readonly ToolSpec[]): FunctionDeclaration[] {
  return tools.map((tool) => {
    const parameters = toGeminiSchema(tool.inputSchema);
    // Gemini rejects an OBJECT without properties; a tool without parameters declares none.
    const hasParameters = Object.keys(parameters.properties ?? {}).length > 0;
    return {
      name: tool.name,
      description: tool.description,
      ...(hasParameters ? { parameters } : {}),
    };
  });
}

/**
 * History as Gemini contents; consecutive turns of one role are merged into one content, and
 * neighbouring plain text parts into one text, each former part starting a line (Gemini reads
 * the parts of a content run together).
 */
export function toGeminiContents(messages: readonly ChatMessage[]): Content[] {
  const contents: Array<{ role: 'user' | 'model'; parts: Part[] }> = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts = toParts(message);
    if (parts.length === 0) continue;
    const previous = contents.at(-1);
    if (previous?.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  }
  return contents.map(({ role, parts }) => ({
    role,
    parts: joinNeighbouringTexts(parts, { textOf: plainText, withText: (text) => ({ text }) }),
  }));
}

/** The text of a part that is nothing but text (not a thought, not signed). */
function plainText(part: Part): string | undefined {
  const keys = Object.keys(part);
  return keys.length === 1 && keys[0] === 'text' ? part.text : undefined;
}

function toParts(message: ChatMessage): Part[] {
  switch (message.role) {
    case 'user':
      return message.content.flatMap((part): Part[] => {
        if (part.type === 'text') return part.text === '' ? [] : [{ text: part.text }];
        if (part.data !== undefined) {
          return [{ inlineData: { mimeType: part.mediaType, data: part.data } }];
        }
        return [{ fileData: { fileUri: part.url ?? '', mimeType: part.mediaType } }];
      });
    case 'assistant':
      return modelParts(message);
    case 'tool':
      return message.content.map((result) => ({
        functionResponse: {
          id: result.callId,
          name: result.name,
          response: result.isError ? { error: result.output } : { output: result.output },
        },
      }));
  }
}

function modelParts(message: AssistantMessage): Part[] {
  return message.content.flatMap((part): Part[] => {
    switch (part.type) {
      case 'text':
        return part.text === '' ? [] : [{ text: part.text }];
      case 'reasoning': {
        // Thoughts matter to Gemini only through their signature; unsigned reasoning (or another
        // vendor's) is left out.
        const thoughtSignature = readThoughtSignature(part.providerMetadata);
        return thoughtSignature === undefined
          ? []
          : [{ text: part.text, thought: true, thoughtSignature }];
      }
      case 'tool-call': {
        const thoughtSignature = readThoughtSignature(part.providerMetadata);
        return [
          {
            functionCall: { id: part.id, name: part.name, args: asArguments(part.input) },
            // The SDK's Part takes no explicit undefined: an unsigned call is sent without one.
            ...(thoughtSignature === undefined ? {} : { thoughtSignature }),
          },
        ];
      }
    }
  });
}

function asArguments(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input)
    ? (input as Record<string, unknown>)
    : {};
}
