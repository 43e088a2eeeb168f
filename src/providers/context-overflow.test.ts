import { describe, expect, it } from 'vitest';
import { isContextOverflow } from './context-overflow.ts';

describe('isContextOverflow', () => {
  it('recognises the vendor code', () => {
    expect(isContextOverflow({ code: 'context_length_exceeded', message: 'Bad request' })).toBe(
      true,
    );
  });

  // OpenAI's wordings and the generic ones, then what Anthropic, Gemini and llama.cpp say.
  it.each([
    "This model's context_length is 8192",
    "This model's maximum context length is 128000 tokens.",
    'Too many tokens in the request',
    'Context too long for this model',
    'The prompt exceeds context window of the model',
    'Request too large for gpt-4o in organization org-x on tokens per min',
    'Input is too large for model llama3',
    'prompt is too long: 215021 tokens > 200000 maximum',
    'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    'the request exceeds the available context size, try increasing it',
  ])('recognises "%s"', (message) => {
    expect(isContextOverflow({ message })).toBe(true);
  });

  it('does not mistake other failures for an overflow', () => {
    for (const message of [
      'Rate limit reached',
      'Invalid API key',
      "Unsupported parameter: 'temperature'",
    ]) {
      expect(isContextOverflow({ code: 'invalid_value', message })).toBe(false);
    }
  });
});
