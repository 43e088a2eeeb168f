/**
 * Readable text from an HTML page: the words a person would read, without markup, scripts or
 * styles. Deliberately small (no DOM): the model needs content, not layout.
 */

const INVISIBLE_ELEMENTS = [
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'head',
  'iframe',
  'object',
];
const BLOCK_TAGS =
  /^(p|div|br|hr|h[1-6]|ul|ol|dl|dt|dd|tr|table|thead|tbody|section|article|header|footer|nav|aside|main|blockquote|pre|figure|figcaption|form|fieldset|address|details|summary)$/i;
/** A tag, tolerating `>` inside quoted attribute values. */
const TAG = /<(\/?)([a-zA-Z][\w:-]*)(?:[^>"']|"[^"]*"|'[^']*')*>/g;

/** Marks list items while converting (a private-use character, removed from the input first). */
const BULLET = '\uE000';

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  deg: '°',
  times: '×',
  divide: '÷',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
};

export interface PageText {
  title: string | undefined;
  text: string;
}

export function htmlToText(html: string): PageText {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  let body = html
    .replaceAll(BULLET, '')
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<[!?][^>]*>/g, ' ');
  for (const element of INVISIBLE_ELEMENTS) {
    body = body.replace(new RegExp(`<${element}\\b[\\s\\S]*?(?:</${element}\\s*>|$)`, 'gi'), ' ');
  }
  body = body.replace(TAG, (_tag, _closing: string, name: string) => {
    if (/^li$/i.test(name)) return _closing === '' ? `\n${BULLET} ` : '';
    if (/^(td|th)$/i.test(name)) return ' ';
    return BLOCK_TAGS.test(name) ? '\n' : '';
  });
  // A `<` that opened no tag (e.g. "a < b") stays: it is text.
  return {
    title: title === undefined ? undefined : collapseLine(decodeEntities(title.replace(TAG, ''))),
    text: tidy(decodeEntities(body)),
  };
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+\d*);/gi, (entity, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X'
          ? Number.parseInt(name.slice(2), 16)
          : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
        ? String.fromCodePoint(code)
        : '\uFFFD';
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}

function tidy(text: string): string {
  return text
    .split('\n')
    .map(collapseLine)
    .join('\n')
    .replace(new RegExp(`^${BULLET}$`, 'gm'), '') // an empty list item
    .replaceAll(BULLET, '-')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function collapseLine(line: string): string {
  return line.replace(/[ \t\r\f\v\u00a0]+/g, ' ').trim();
}
