/**
 * buildRequest counts with upper bounds first (bytes: no tokenizer) and loads the model's
 * tokenizer only for a context whose bounds do not fit: the request is the one exact counting
 * builds either way. Its own file: which tokenizers are loaded is the module's state.
 */
import { describe, expect, it } from 'vitest';
import { ModelCatalog, type ModelInfo } from '../../providers/model-catalog.ts';
import type { ResolvedModel } from '../../providers/provider-factory.ts';
import {
  boundCounterFor,
  isTokenizerLoaded,
  loadTokenizer,
  tokenCounterFor,
  type TokenCounter,
} from '../../providers/token-counter.ts';
import { assembleContext } from './context-builder.ts';
import type { ConversationEntry } from './conversation-entries.ts';
import { buildRequest, type PreparedTurn } from './turn-context.ts';

const INFO = new ModelCatalog().lookup('openai', 'gpt-5.4-mini');
const MAX_OUTPUT = 1_000;
const WORDS = 'the quick brown fox jumps over the lazy dog while everyone watches ';

function resolved(info: ModelInfo): ResolvedModel {
  return {
    chatModel: undefined as never,
    provider: 'openai',
    modelId: 'gpt-5.4-mini',
    info,
    keySource: 'operator',
  };
}

/** `entries` exchanges of English prose, `length` characters each (≈ 4–5 bytes per token). */
function prepared(entries: number, length: number): PreparedTurn {
  const history: ConversationEntry[] = Array.from({ length: entries }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    text: `${index}: ${WORDS.repeat(Math.ceil(length / WORDS.length)).slice(0, length)}`,
    createdAt: 1_000 + index,
    importance: 0.5,
    pinned: false,
  }));
  return {
    history,
    system: 'You are Tomo, a friendly member of this server.',
    summary: undefined,
    reminders: [],
    finalUserParts: [{ type: 'text', text: 'What do you think?' }],
    maxOutputTokens: MAX_OUTPUT,
    temperature: undefined,
    unansweredBefore: { ids: [], addressed: [], texts: new Map() },
  };
}

/** The context assembled for `info`'s window with `counter`. */
function assemble(turn: PreparedTurn, info: ModelInfo, counter: TokenCounter) {
  return assembleContext({
    ...turn,
    dropOldest: 0,
    budget: {
      contextWindow: info.contextWindow,
      maxOutputTokens: MAX_OUTPUT,
      counter,
      toolTokens: 0,
    },
  });
}

/** The context an exactly counted assembly gives (the tokenizer loaded first). */
async function exactly(turn: PreparedTurn, info: ModelInfo) {
  await loadTokenizer(info);
  return assemble(turn, info, tokenCounterFor(info));
}

describe('buildRequest counting', () => {
  it('builds a request whose bounds fit without loading the tokenizer, as exact counting would', async () => {
    const turn = prepared(40, 600);
    const built = await buildRequest({
      prepared: turn,
      model: resolved(INFO),
      toolSpecs: [],
      dropOldest: 0,
    });
    expect(isTokenizerLoaded(INFO)).toBe(false);
    const exact = await exactly(turn, INFO);
    expect(built.request.messages).toEqual(exact.messages);
    expect(built.includedHistory).toBe(40);
    // An upper bound of the prompt, never below the exact count.
    expect(built.promptTokens).toBeGreaterThanOrEqual(exact.promptTokens);
  });

  it('counts exactly when the bounds do not fit: history a byte count would drop is kept', async () => {
    // About 2,400 tokens of history (≈ 12,000 bytes) in a window leaving 6,000 for it.
    const small: ModelInfo = { ...INFO, contextWindow: MAX_OUTPUT + 6_000 };
    const turn = prepared(20, 600);
    const byBytes = assemble(turn, small, boundCounterFor(small));
    expect(byBytes.includedHistory).toBeLessThan(20);
    const built = await buildRequest({
      prepared: turn,
      model: resolved(small),
      toolSpecs: [],
      dropOldest: 0,
    });
    expect(isTokenizerLoaded(small)).toBe(true);
    expect(built.includedHistory).toBe(20);
    expect(built.request.messages).toEqual((await exactly(turn, small)).messages);
  });
});
