import { describe, expect, it } from 'vitest';
import { chunkMessage, DISCORD_MESSAGE_LIMIT } from './chunker.ts';

const paragraph = (words: number, seed = 'word'): string =>
  Array.from({ length: words }, (_, index) => `${seed}${index}`).join(' ');

describe('chunkMessage', () => {
  it('returns text within the limit as one trimmed message, and nothing for blank text', () => {
    expect(chunkMessage('  hello  \n')).toEqual(['hello']);
    expect(chunkMessage(' \n\t ')).toEqual([]);
    expect(chunkMessage('x'.repeat(DISCORD_MESSAGE_LIMIT))).toHaveLength(1);
  });

  it('splits a paragraph over 2000 characters into messages within the limit', () => {
    const text = `${paragraph(600)}.`;
    expect(text.length).toBeGreaterThan(4000);
    const messages = chunkMessage(text);
    expect(messages.length).toBeGreaterThanOrEqual(3);
    for (const message of messages)
      expect(message.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
    expect(messages.join(' ')).toBe(text);
  });

  it('prefers a paragraph break, then a line break, then a sentence end, then a space', () => {
    const limit = 300;
    const first = `${paragraph(45, 'a')}.`; // past half of the room: a good place to end
    expect(chunkMessage(`${first}\n\n${paragraph(30, 'b')}. ${paragraph(30, 'c')}`, limit)[0]).toBe(
      first,
    );
    expect(chunkMessage(`${first}\n${paragraph(30, 'b')}. ${paragraph(30, 'c')}`, limit)[0]).toBe(
      first,
    );
    expect(chunkMessage(`${first} ${paragraph(60, 'b')}`, limit)[0]).toBe(first);
    const words = chunkMessage(paragraph(100, 'd'), limit)[0] ?? '';
    expect(words.length).toBeGreaterThan(limit / 2);
    expect(words).toMatch(/d\d+$/);
  });

  it('does not settle for a boundary in the first half when a weaker one is later', () => {
    const limit = 300;
    const text = `Short.\n\n${paragraph(80, 'e')}`;
    const [first] = chunkMessage(text, limit);
    expect(first?.length).toBeGreaterThan(limit / 2);
  });

  it('closes a long code block at the end of a message and reopens it with its language', () => {
    const code = Array.from(
      { length: 200 },
      (_, index) => `  const value${index} = compute(${index});`,
    ).join('\n');
    const messages = chunkMessage(`Here:\n\`\`\`typescript\n${code}\n\`\`\`\nDone.`);
    expect(messages.length).toBeGreaterThan(3);
    for (const [index, message] of messages.entries()) {
      expect(message.length).toBeLessThanOrEqual(DISCORD_MESSAGE_LIMIT);
      expect((message.match(/```/g)?.length ?? 0) % 2).toBe(0);
      if (index > 0 && index < messages.length - 1) {
        expect(message.startsWith('```typescript\n  const')).toBe(true);
        expect(message.endsWith(');\n```')).toBe(true);
      }
    }
    const code_ = messages
      .join('\n')
      .replace(/\n```\n```typescript\n/g, '\n')
      .replace(/^Here:\n```typescript\n/, '');
    expect(code_.startsWith(code)).toBe(true);
  });

  it('never splits a URL, a mention, a custom emoji or a timestamp', () => {
    const tokens = [
      `https://example.com/${'path/'.repeat(30)}end`,
      '<@123456789012345678>',
      '<a:party_parrot:123456789012345678>',
      '<t:1700000000:F>',
    ];
    const text = Array.from({ length: 40 }, (_, index) => `${tokens[index % tokens.length]}`).join(
      ' ',
    );
    const messages = chunkMessage(text, 400);
    for (const message of messages) {
      for (const piece of message.split(' ')) expect(tokens).toContain(piece);
    }
  });

  it('cuts text without spaces between grapheme clusters, never inside a surrogate pair', () => {
    const flags = '🇯🇵🇫🇷🇩🇪';
    const text = `${flags.repeat(200)}e\u0301`.repeat(2);
    const messages = chunkMessage(text, 500);
    expect(messages.join('')).toBe(text);
    for (const message of messages) {
      expect(message.length).toBeLessThanOrEqual(500);
      expect(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(message)).toBe(false);
      expect(/^\u0301/.test(message)).toBe(false);
      // Regional indicators come in pairs: a cut between the two halves of a flag would leave an odd count.
      expect([...message.matchAll(/[\u{1F1E6}-\u{1F1FF}]/gu)].length % 2).toBe(0);
    }
  });

  it('rejects a limit too small to hold a Discord token', () => {
    expect(() => chunkMessage('x'.repeat(300), 100)).toThrow(RangeError);
  });
});
