import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { protectSpans, restoreSpans } from './protected-spans.ts';

describe('protectSpans', () => {
  it('replaces code, URLs, Discord tokens and markdown markers with placeholders', () => {
    const text =
      '## Title\n- **Bold** see https://Example.com/A_B and `Code` <@123456789012345678>\n```ts\nConst X\n```';
    const { masked, spans } = protectSpans(text);
    expect(spans.map((span) => [span.kind, span.text])).toEqual([
      ['markdown', '## '],
      ['markdown', '- '],
      ['markdown', '**'],
      ['markdown', '**'],
      ['url', 'https://Example.com/A_B'],
      ['code', '`Code`'],
      ['discord', '<@123456789012345678>'],
      ['code', '```ts\nConst X\n```'],
    ]);
    expect(masked).not.toMatch(/Example|Code|Const|<@/);
    expect(masked).toContain('Title');
  });

  it('round-trips any text exactly, including private-use characters of its own', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.constantFrom('\uE000', '\uE001', '\uE0001\uE001', ''),
        (text, extra) => {
          const input = `${text}${extra}${text}`;
          const { masked, spans } = protectSpans(input);
          expect(restoreSpans(masked, spans)).toBe(input);
        },
      ),
    );
  });
});
