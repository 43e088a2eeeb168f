import fc from 'fast-check';

/** Spans that must reach Discord byte-identical and unsplit. */
export const protectedToken = fc.oneof(
  fc.constantFrom(
    '<@123456789012345678>',
    '<@!223456789012345678>',
    '<#323456789012345678>',
    '<@&423456789012345678>',
    '<:Smile:523456789012345678>',
    '<a:WaveHello:623456789012345678>',
    '<t:1700000000:R>',
    '<t:1700000000>',
    '😀',
    '👨‍👩‍👧‍👦',
    '🇯🇵',
    'e\u0301',
  ),
  fc
    .tuple(
      fc.constantFrom('https://Example.com/', 'http://Wiki.Example.org/'),
      fc.stringMatching(/^[A-Za-z0-9_]{0,12}$/),
      fc.constantFrom('', '?Query=Yes&B=2', '#Frag', '/Path_(Disambiguation)'),
    )
    .map(([base, path, tail]) => base + path + tail),
  fc.stringMatching(/^[A-Za-z .]{1,20}$/).map((code) => `\`${code.trim() || 'X'}\``),
);

const word = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z]{1,9}$/) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Z][a-z]{0,8}$/) },
  { weight: 1, arbitrary: fc.constantFrom('NASA', 'I', 'API', 'GPUs', 'OK') },
  { weight: 2, arbitrary: fc.constantFrom('こんにちは', '元気', 'ですか', '東京', 'カタカナ') },
);

const punctuation = fc.constantFrom(
  '. ',
  '! ',
  '? ',
  '... ',
  ', ',
  '; ',
  ' — ',
  '。',
  '、',
  '！',
  '？',
  ':) ',
  ';) ',
  '1) ',
  'a) ',
  ':( ',
  '(',
  ')',
  '[',
  ']',
  '"',
  '“',
  '”',
  '「',
  '」',
  '『',
  '』',
  '**',
  '*',
  '_',
  '__',
  '~~',
  '||',
  ' e.g. ',
  ' Dr. ',
  '\n',
  '\n\n',
  '\n- ',
  '\n1. ',
  '\n> ',
  '\n# ',
);

const fencedCode = fc
  .tuple(
    fc.constantFrom('', 'ts', 'python', 'c++'),
    fc.array(fc.stringMatching(/^[A-Za-z0-9 =;(){}.]{0,40}$/), { minLength: 1, maxLength: 12 }),
  )
  .map(([language, lines]) => `\n\`\`\`${language}\n${lines.join('\n')}\n\`\`\`\n`);

/** A long run with no whitespace at all (forces grapheme-safe hard cuts). */
const unbroken = fc.integer({ min: 100, max: 700 }).map((length) => 'x'.repeat(length));

/** Markdown-ish chat text: words, punctuation, holds, emoticons, tokens, code, Japanese. */
export const markdownText = fc
  .array(
    fc.oneof(
      { weight: 12, arbitrary: word.map((text) => `${text} `) },
      { weight: 6, arbitrary: punctuation },
      { weight: 2, arbitrary: protectedToken.map((token) => ` ${token} `) },
      { weight: 1, arbitrary: fencedCode },
      { weight: 1, arbitrary: unbroken },
    ),
    { maxLength: 300, size: 'large' },
  )
  .map((pieces) => pieces.join(''));

/** Splits `text` into deltas by cycling through `sizes` (with an empty delta now and then). */
export function splitBySizes(text: string, sizes: readonly number[]): string[] {
  if (sizes.length === 0) return [text];
  const deltas: string[] = [];
  let index = 0;
  for (let position = 0; position < text.length; index += 1) {
    const size = sizes[index % sizes.length] ?? 1;
    deltas.push(text.slice(position, position + size));
    if (size % 7 === 0) deltas.push('');
    position += size;
  }
  deltas.push('');
  return deltas;
}

export const deltaSizes = fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 });

/** The text without fence markers and whitespace: what must survive delivery unchanged. */
export function essence(text: string): string {
  return text.replace(/```[\w+#.-]*/g, '').replace(/\s+/g, '');
}

/** Each message's ``` count is even (Discord pairs them in order). */
export function fencesBalanced(message: string): boolean {
  return (message.match(/```/g)?.length ?? 0) % 2 === 0;
}
