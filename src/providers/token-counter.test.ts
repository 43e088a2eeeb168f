import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../core/chat.ts';
import { ModelCatalog } from './model-catalog.ts';
import { createTokenCounter, loadTokenizer } from './token-counter.ts';

const catalog = new ModelCatalog();
await loadTokenizer(catalog.lookup('openai', 'gpt-5.4-mini'));
const openai = createTokenCounter(catalog.lookup('openai', 'gpt-5.4-mini'));
const claude = createTokenCounter(catalog.lookup('anthropic', 'claude-sonnet-5-5'));
const local = createTokenCounter(catalog.lookup('openai', 'llama3.1:8b'));

describe('createTokenCounter', () => {
  it('needs its tokenizer imported first, and counts with it once loadTokenizer has run', async () => {
    const gpt4 = catalog.lookup('openai', 'gpt-4');
    expect(() => createTokenCounter(gpt4)).toThrow(/cl100k tokenizer is not loaded/);
    await loadTokenizer(gpt4);
    expect(createTokenCounter(gpt4).countText('hello world')).toBe(2);
  });

  it('counts OpenAI-family text with the real tokenizer', () => {
    const text = 'The quick brown fox jumps over the lazy dog.';
    expect(openai.countText(text)).toBe(countTokens(text));
  });

  it('counts text containing special-token markup as plain text instead of throwing', () => {
    expect(openai.countText('please print <|endoftext|> for me')).toBeGreaterThan(5);
  });

  it('estimates other models, scaled for denser tokenizers', () => {
    const text = 'Persona: a cheerful companion who loves astronomy and bad puns.';
    expect(claude.countText(text)).toBeGreaterThan(local.countText(text));
    expect(local.countText(text)).toBeGreaterThanOrEqual(countTokens(text) * 0.85);
  });

  it('adds per-message overhead, images and tool traffic to message counts', () => {
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'c1', name: 'describe_image', input: { detail: 'high' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'c1',
            name: 'describe_image',
            output: 'A cat on a sofa.',
            isError: false,
          },
        ],
      },
    ];
    const textOnly = openai.countText('What is in this picture?');
    const total = openai.countMessages(messages);
    expect(total).toBeGreaterThan(textOnly + 765);
    expect(openai.countMessages(messages.slice(0, 1))).toBeLessThan(total);
  });

  it('counts a whole request: system, messages and tool declarations', () => {
    const tool: ToolSpec = {
      name: 'get_weather',
      description: 'Weather for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    };
    const messages: ChatMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }];
    const bare = openai.countRequest({ system: '', messages, tools: [] });
    const full = openai.countRequest({ system: 'Be kind.', messages, tools: [tool] });
    expect(full - bare).toBeGreaterThanOrEqual(
      openai.countText('Be kind.') + openai.countTools([tool]),
    );
  });

  it('recounts a 200-message history from its cache in under 50 ms (it runs every turn)', () => {
    const messages: ChatMessage[] = Array.from({ length: 200 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: [
        {
          type: 'text',
          text: `Message ${index}: ${'some ordinary chat text with a few words '.repeat(8)}`,
        },
      ],
    }));
    openai.countMessages(messages);
    const started = performance.now();
    openai.countMessages(messages);
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe('boundMessages', () => {
  const texts = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.constantFrom('please print <|endoftext|> for me', '今日はいい天気ですね。🍣🍣', '   \n\t'),
  );
  const messages = fc.array(
    fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), text: texts }),
    { maxLength: 6 },
  );
  const asChat = (list: Array<{ role: 'user' | 'assistant'; text: string }>): ChatMessage[] =>
    list.map(({ role, text }) => ({ role, content: [{ type: 'text', text }] }));

  it('is never below the real count (a byte-level BPE token is at least one byte)', () => {
    fc.assert(
      fc.property(messages, (list) => {
        const chat = asChat(list);
        expect(openai.boundMessages(chat)).toBeGreaterThanOrEqual(openai.countMessages(chat));
      }),
      { numRuns: 300 },
    );
  });

  it('is the count itself for estimated models', () => {
    fc.assert(
      fc.property(messages, (list) => {
        const chat = asChat(list);
        expect(claude.boundMessages(chat)).toBe(claude.countMessages(chat));
      }),
    );
  });
});
