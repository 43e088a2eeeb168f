/**
 * A DOM subtree as Markdown-ish text for the model: headings as `#`, list items as `-` / `1.`,
 * links as `[text](absolute url)`, code blocks fenced, quotes with `>`, table rows with `|`.
 * Images, forms, scripts and styles are dropped. Walking stops once `maxChars` are written.
 *
 * The DOM is linkedom's; only the few members used here are typed (the project compiles
 * without the DOM library).
 */
export interface DomNode {
  nodeType: number;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

export interface DomElement extends DomNode {
  localName: string;
  getAttribute(name: string): string | null;
}

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;
const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'img',
  'picture',
  'video',
  'audio',
  'form',
  'input',
  'button',
  'select',
  'textarea',
  'head',
]);
const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'nav',
  'figure',
  'figcaption',
  'details',
  'summary',
  'address',
  'dl',
  'dt',
  'dd',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'hr',
]);

export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT_NODE;
}

export function toMarkdownText(
  root: DomNode,
  options: { baseUrl: string | undefined; maxChars: number },
): string {
  const writer = new BlockWriter(options.maxChars);
  walk(root, { writer, baseUrl: options.baseUrl, listDepth: 0, depth: 0 });
  return writer.finish();
}

/** Deeper markup is a broken or hostile page, not content; it must not exhaust the stack. */
const MAX_DEPTH = 200;

interface WalkState {
  writer: BlockWriter;
  baseUrl: string | undefined;
  listDepth: number;
  depth: number;
}

/** The children of `node` as their own text (a quote's or a list item's content). */
function childrenText(node: DomNode, state: WalkState, maxChars: number): string {
  const writer = new BlockWriter(maxChars);
  const inner = { ...state, writer, depth: state.depth + 1 };
  for (const child of Array.from(node.childNodes)) walk(child, inner);
  return writer.finish();
}

function walk(node: DomNode, parent: WalkState): void {
  if (parent.writer.full || parent.depth > MAX_DEPTH) return;
  const state = { ...parent, depth: parent.depth + 1 };
  if (node.nodeType === TEXT_NODE) {
    state.writer.inline(node.textContent ?? '');
    return;
  }
  if (!isElement(node)) {
    for (const child of Array.from(node.childNodes)) walk(child, state);
    return;
  }
  const name = node.localName.toLowerCase();
  if (SKIPPED.has(name) || node.getAttribute('hidden') !== null) return;
  const heading = /^h([1-6])$/.exec(name);
  if (heading !== null) {
    state.writer.block(`${'#'.repeat(Number(heading[1]))} ${inlineText(node)}`);
  } else if (name === 'ul' || name === 'ol') {
    state.writer.breakBlock();
    let index = 0;
    for (const child of Array.from(node.childNodes)) {
      if (!isElement(child) || child.localName.toLowerCase() !== 'li') continue;
      index += 1;
      const marker = name === 'ol' ? `${index}.` : '-';
      listItem(child, marker, { ...state, listDepth: state.listDepth + 1 });
    }
    state.writer.breakBlock();
  } else if (name === 'pre') {
    state.writer.block(`\`\`\`\n${(node.textContent ?? '').replace(/\n+$/, '')}\n\`\`\``, true);
  } else if (name === 'blockquote') {
    const quoted = childrenText(node, state, state.writer.room);
    state.writer.block(quoted.replace(/^/gm, '> '), true);
  } else if (name === 'tr') {
    const cells = Array.from(node.childNodes).filter(isElement).map(inlineText);
    state.writer.line(cells.join(' | '));
  } else if (name === 'br') {
    state.writer.newline();
  } else if (name === 'a') {
    state.writer.inline(link(node, state.baseUrl));
  } else if (name === 'code') {
    state.writer.inline(`\`${(node.textContent ?? '').trim()}\``);
  } else {
    const block = BLOCKS.has(name) || name === 'li';
    if (block) state.writer.breakBlock();
    for (const child of Array.from(node.childNodes)) walk(child, state);
    if (block) state.writer.breakBlock();
  }
}

function listItem(item: DomElement, marker: string, state: WalkState): void {
  const nested: DomNode[] = [];
  const own = Array.from(item.childNodes).filter((child) => {
    const isList = isElement(child) && /^(ul|ol)$/i.test(child.localName);
    if (isList) nested.push(child);
    return !isList;
  });
  const text = own
    .map((child) => childrenText({ ...child, childNodes: [child] }, state, 2_000))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text !== '') state.writer.line(`${'  '.repeat(state.listDepth - 1)}${marker} ${text}`);
  for (const list of nested) walk(list, state);
}

function link(anchor: DomElement, baseUrl: string | undefined): string {
  const text = inlineText(anchor);
  const href = absoluteHttpUrl(anchor.getAttribute('href'), baseUrl);
  if (href === undefined || text === '' || text === href) return ` ${text} `;
  return ` [${text}](${href}) `;
}

function absoluteHttpUrl(href: string | null, baseUrl: string | undefined): string | undefined {
  if (href === null || href.trim() === '' || href.startsWith('#')) return undefined;
  try {
    const url = new URL(href.trim(), baseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

function inlineText(node: DomNode): string {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/** Collects inline text into blocks separated by blank lines, up to a character budget. */
class BlockWriter {
  readonly #blocks: string[] = [];
  #current = '';
  #length = 0;
  readonly #maxChars: number;

  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  get full(): boolean {
    return this.#length >= this.#maxChars;
  }

  get room(): number {
    return Math.max(0, this.#maxChars - this.#length);
  }

  inline(text: string): void {
    const collapsed = text.replace(/\s+/g, ' ');
    if (collapsed.trim() === '' && this.#current === '') return;
    this.#current += collapsed;
  }

  newline(): void {
    this.#current += '\n';
  }

  /** One line of its own (a list item, a table row), kept next to its neighbours. */
  line(text: string): void {
    this.breakBlock();
    this.#push(text, 'line');
  }

  block(text: string, verbatim = false): void {
    this.breakBlock();
    this.#push(verbatim ? text : text.replace(/\s+/g, ' ').trim(), 'block');
  }

  breakBlock(): void {
    const text = this.#current
      .split('\n')
      .map((part) => part.replace(/ +/g, ' ').trim())
      .join('\n')
      .trim();
    this.#current = '';
    if (text !== '') this.#push(text, 'block');
  }

  finish(): string {
    this.breakBlock();
    return this.#blocks.join('').trim();
  }

  #push(text: string, kind: 'line' | 'block'): void {
    if (text === '' || this.full) return;
    const last = this.#blocks.at(-1);
    const afterLine = last?.endsWith('\n') === true;
    const separator = last === undefined ? '' : afterLine ? (kind === 'line' ? '' : '\n') : '\n\n';
    const piece = `${separator}${text}${kind === 'line' ? '\n' : ''}`;
    this.#blocks.push(piece);
    this.#length += piece.length;
  }
}
