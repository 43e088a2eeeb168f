import { describe, expect, it } from 'vitest';
import { readMetrics, summarizeTurn } from './turn-summary.ts';

const metrics = {
  durationMs: 2_400,
  timeToFirstTokenMs: 320,
  timeToFirstMessageMs: 500,
  outputTokensPerSecond: 45.5,
  inputTokens: 1_234,
  outputTokens: 88,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  iterations: 2,
  textDeltas: 10,
  textCharacters: 300,
  deliveries: 2,
  tools: [
    { name: 'current_time', durationMs: 3, outcome: 'ok' },
    { name: 'current_time', durationMs: 2, outcome: 'ok' },
    { name: 'search__web', durationMs: 30_000, outcome: 'timeout' },
  ],
  finishReason: 'stop',
  toolLimitReached: false,
};

describe('summarizeTurn', () => {
  it('shows tokens in and out, time to first token, tokens/s, duration, status and tools', () => {
    const field = summarizeTurn(
      {
        status: 'complete',
        content: 'Here is **the** answer\n\n```ts\ncode()\n```\nand more',
        createdAt: new Date(1_767_268_800_000),
        metrics,
      },
      'en',
    );
    expect(field.name).toBe('✅ complete');
    expect(field.value).toContain('<t:1767268800:R>');
    expect(field.value).toContain('**1,234** in · **88** out');
    expect(field.value).toContain('First token **320 ms** · **45.5** tokens/s · 2.4 s in all');
    expect(field.value).toContain('`current_time` ×2, `search__web` (1 ✗)');
    expect(field.value).toContain('> Here is \\*\\*the\\*\\* answer [code] and more');
  });

  it('words a stopped turn in Japanese and survives missing or foreign metrics', () => {
    const field = summarizeTurn(
      { status: 'stopped', content: '', createdAt: new Date(0), metrics: { tokens: 'many' } },
      'ja',
    );
    expect(field.name).toBe('⏹️ 停止');
    expect(field.value).toContain('メトリクスの記録はありません。');
    expect(field.value).toContain('（テキストなし）');
    expect(readMetrics(null)).toBeUndefined();
    expect(readMetrics({ ...metrics, tools: 'broken' })?.tools).toEqual([]);
  });

  it('keeps a field far below Discord’s 1024 characters whatever the turn holds', () => {
    const tools = Array.from({ length: 40 }, (_, index) => ({
      name: `${'x'.repeat(60)}${index}`,
      durationMs: 1,
      outcome: 'error',
    }));
    const field = summarizeTurn(
      {
        status: 'complete',
        content: 'word '.repeat(2_000),
        createdAt: new Date(0),
        metrics: { ...metrics, tools },
      },
      'en',
    );
    expect(field.value.length).toBeLessThan(1024);
    expect(field.value).toContain('+35');
  });

  it('names the character that spoke a reply, and leaves the bot’s own unnamed', () => {
    const base = { status: 'complete' as const, content: 'Rooms are two silver.', metrics };
    const createdAt = new Date(1_767_268_800_000);
    const character = summarizeTurn(
      { ...base, createdAt, authorName: 'Alice', characterId: 'c-1' },
      'ja',
    );
    expect(character.name).toBe('✅ 完了 · Alice');
    const own = summarizeTurn({ ...base, createdAt, authorName: 'Tomo', characterId: null }, 'en');
    expect(own.name).toBe('✅ complete');
  });
});
