import type { ChatMessage, ToolSpec } from '../core/chat.ts';
import type { ProviderId } from '../core/provider.ts';
import type { ModelInfo } from './model-catalog.ts';
import { estimateTokens } from './token-estimate.ts';

/** Counts tokens for context budgets. Runs on every turn, so it caches per text. */
export interface TokenCounter {
  countText(text: string): number;
  /** The messages as the model receives them, with per-message framing overhead. */
  countMessages(messages: readonly ChatMessage[]): number;
  /**
   * At least what countMessages returns, without a tokenizer pass: a byte-level BPE token is
   * at least one UTF-8 byte. The estimate tokenizer is cheap already: its count is its bound.
   */
  boundMessages(messages: readonly ChatMessage[]): number;
  countTools(tools: readonly ToolSpec[]): number;
  /** System + messages + tools: what one request costs in input tokens. */
  countRequest(request: {
    system: string;
    messages: readonly ChatMessage[];
    tools: readonly ToolSpec[];
  }): number;
}

/** Role markers and separators each message adds (OpenAI documents 3; others are similar). */
const MESSAGE_OVERHEAD = 4;
/** The reply primer every request ends with. */
const REQUEST_OVERHEAD = 3;
/** Name, id and JSON framing around a tool call or result. */
const TOOL_PART_OVERHEAD = 8;
/** A typical image at default detail, per vendor (OpenAI 1024² high detail, Anthropic ~1.15 MP, Gemini 3 default resolution). */
const IMAGE_TOKENS: Record<ProviderId, number> = { openai: 765, anthropic: 1_600, google: 1_120 };
/** Texts shorter than this are counted directly: caching them costs more than it saves. */
const CACHE_MIN_LENGTH = 64;
const CACHE_SIZE = 4_096;

// Special-token text ("<|endoftext|>") in a user message is just text to count, never an error.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

type Encoding = 'o200k' | 'cl100k';
type EncodingCount = (text: string, options: typeof PLAIN_TEXT) => number;

/**
 * The encodings' tables are big (o200k: 16 MB of heap, cl100k: 8 MB), so each is imported the
 * first time a model that uses it needs counting, never at start-up.
 */
const ENCODING_MODULES: Record<Encoding, () => Promise<EncodingCount>> = {
  o200k: async () => (await import('gpt-tokenizer/encoding/o200k_base')).countTokens,
  cl100k: async () => (await import('gpt-tokenizer/encoding/cl100k_base')).countTokens,
};
const loadedEncodings = new Map<Encoding, EncodingCount>();

/** Whether the model's counts can be made now (its tokenizer imported, or it has none). */
export function isTokenizerLoaded(model: ModelInfo): boolean {
  return model.tokenizer === 'estimate' || loadedEncodings.has(model.tokenizer);
}

/** Imports the model's tokenizer if it has one; `createTokenCounter` needs it loaded. */
export async function loadTokenizer(model: ModelInfo): Promise<void> {
  if (model.tokenizer === 'estimate' || loadedEncodings.has(model.tokenizer)) return;
  loadedEncodings.set(model.tokenizer, await ENCODING_MODULES[model.tokenizer]());
}

/** One counter (and its per-text cache) per model: history texts repeat from turn to turn. */
const sharedCounters = new WeakMap<ModelInfo, TokenCounter>();

/**
 * The model's shared counter: the context of a turn and the estimate of its usage (when the
 * provider reports none) count the same texts, so they share one cache.
 * @throws Error when the model's tokenizer has not been loaded (`loadTokenizer`).
 */
export function tokenCounterFor(model: ModelInfo): TokenCounter {
  let counter = sharedCounters.get(model);
  if (counter === undefined) {
    counter = createTokenCounter(model);
    sharedCounters.set(model, counter);
  }
  return counter;
}

/**
 * Counts that are never below the model's: a text's UTF-8 bytes for a byte-level BPE tokenizer
 * (a token is at least one byte), without importing it; the model's own counts for a model
 * without one (its estimate is cheap already, and is its count). For a context that fits the
 * window even so: then it fits exactly counted too, and the tokenizer (o200k: 16 MB of heap) is
 * never loaded.
 */
export function boundCounterFor(model: ModelInfo): TokenCounter {
  if (model.tokenizer === 'estimate') return tokenCounterFor(model);
  return countersOver(utf8Bytes, model);
}

/**
 * A counter for usage estimates (a model call the provider reported no usage for): the model's
 * own when its tokenizer is loaded, else the tokenizer-free estimate (token-estimate.ts, within
 * 0.85–1.5× of o200k, leaning high: the budget is not undercharged).
 */
export function usageCounterFor(model: ModelInfo): TokenCounter {
  if (isTokenizerLoaded(model)) return tokenCounterFor(model);
  return countersOver((text) => Math.ceil(estimateTokens(text) * model.estimateRatio), model);
}

/** @throws Error when the model's tokenizer has not been loaded (`loadTokenizer`). */
export function createTokenCounter(model: ModelInfo): TokenCounter {
  const count = rawCounter(model);
  const cache = new Map<string, number>();
  const countText = (text: string): number => {
    if (text.length < CACHE_MIN_LENGTH) return count(text);
    const cached = cache.get(text);
    if (cached !== undefined) {
      // Refresh recency: Map iteration order is insertion order, so this keeps an LRU.
      cache.delete(text);
      cache.set(text, cached);
      return cached;
    }
    const tokens = count(text);
    cache.set(text, tokens);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    return tokens;
  };
  const counter = countersOver(countText, model);
  // The estimate is its own bound; a BPE token is at least one UTF-8 byte.
  if (model.tokenizer === 'estimate') return counter;
  return { ...counter, boundMessages: messagesCounter(utf8Bytes, IMAGE_TOKENS[model.provider]) };
}

/** Messages, tools and requests counted with `countText` for their texts, plus framing. */
function countersOver(countText: (text: string) => number, model: ModelInfo): TokenCounter {
  const countMessages = messagesCounter(countText, IMAGE_TOKENS[model.provider]);
  const countTools = (tools: readonly ToolSpec[]): number =>
    tools.reduce(
      (total, tool) =>
        total +
        TOOL_PART_OVERHEAD +
        countText(tool.name) +
        countText(tool.description) +
        countText(JSON.stringify(tool.inputSchema)),
      0,
    );
  return {
    countText,
    countMessages,
    boundMessages: countMessages,
    countTools,
    countRequest: ({ system, messages, tools }) =>
      REQUEST_OVERHEAD +
      (system === '' ? 0 : MESSAGE_OVERHEAD + countText(system)) +
      countMessages(messages) +
      countTools(tools),
  };
}

/** Messages counted with `countText` for their texts, plus framing and image costs. */
function messagesCounter(
  countText: (text: string) => number,
  imageTokens: number,
): (messages: readonly ChatMessage[]) => number {
  const countMessage = (message: ChatMessage): number => {
    let tokens = MESSAGE_OVERHEAD;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          tokens += countText(part.text);
          break;
        case 'image':
          tokens += imageTokens;
          break;
        case 'tool-call':
          tokens +=
            TOOL_PART_OVERHEAD + countText(part.name) + countText(JSON.stringify(part.input ?? {}));
          break;
        case 'tool-result':
          tokens += TOOL_PART_OVERHEAD + countText(part.output);
          break;
      }
    }
    return tokens;
  };
  return (messages) => messages.reduce((total, message) => total + countMessage(message), 0);
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

function rawCounter(model: ModelInfo): (text: string) => number {
  if (model.tokenizer === 'estimate')
    return (text) => Math.ceil(estimateTokens(text) * model.estimateRatio);
  const count = loadedEncodings.get(model.tokenizer);
  if (count === undefined) {
    throw new Error(`the ${model.tokenizer} tokenizer is not loaded: await loadTokenizer first`);
  }
  return (text) => count(text, PLAIN_TEXT);
}
