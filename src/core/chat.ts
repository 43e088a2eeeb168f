/**
 * The vendor-neutral conversation a provider receives. Adapters convert it to their SDK's shapes;
 * nothing vendor-specific appears here except opaque `providerMetadata` an adapter needs back
 * on the next request (e.g. Gemini thought signatures, Anthropic thinking signatures).
 */

/** Opaque, adapter-owned data carried through history unchanged. */
export type ProviderMetadata = Readonly<Record<string, unknown>>;

export interface TextPart {
  type: 'text';
  text: string;
}

/** An image as base64 data or a URL the provider may fetch itself. */
export interface ImagePart {
  type: 'image';
  mediaType: string;
  data?: string;
  url?: string;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  providerMetadata?: ProviderMetadata;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  input: unknown;
  providerMetadata?: ProviderMetadata;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  name: string;
  /** What the model reads: the tool's output, or the error text when `isError`. */
  output: string;
  isError: boolean;
}

export type UserMessage = { role: 'user'; content: Array<TextPart | ImagePart> };
export type AssistantMessage = {
  role: 'assistant';
  content: Array<TextPart | ReasoningPart | ToolCallPart>;
};
export type ToolMessage = { role: 'tool'; content: ToolResultPart[] };

export type ChatMessage = UserMessage | AssistantMessage | ToolMessage;

/** A JSON Schema object (draft 2020-12 subset) describing a tool's input. */
export type JsonSchema = { type: 'object'; [keyword: string]: unknown };

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** One model call. */
export interface ChatRequest {
  model: string;
  /** System instructions (persona, rules). */
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  temperature?: number | undefined;
  maxOutputTokens?: number;
}
