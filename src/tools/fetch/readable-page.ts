import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { toMarkdownText, type DomElement, type DomNode } from './markdown-text.ts';

export interface PageText {
  title: string | undefined;
  text: string;
}

export interface ReadablePageOptions {
  /** The page's final URL: relative links are made absolute against it. */
  url: string | undefined;
  /** The longest text returned (the tool caps again, with a note). */
  maxChars: number;
}

/** Readability gives up (and the fallback runs) on pages with more elements than this. */
const MAX_ELEMENTS = 50_000;
/** Shorter "articles" are usually a cookie notice or a teaser: the fallback reads more. */
const MIN_ARTICLE_CHARS = 200;

/** Page furniture the fallback removes before reading what is left. */
const BOILERPLATE_SELECTOR = [
  'nav',
  'header',
  'footer',
  'aside',
  'menu',
  'dialog',
  'form',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]',
  '[role="dialog"]',
  '[aria-hidden="true"]',
  '[hidden]',
  ...[
    'cookie',
    'consent',
    'gdpr',
    'banner',
    'navbar',
    'menu',
    'sidebar',
    'footer',
    'breadcrumb',
  ].flatMap((word) => [`[id*="${word}" i]`, `[class*="${word}" i]`]),
].join(',');

interface QueryableDocument extends DomNode {
  title: string;
  body: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement & { remove(): void }>;
}

/**
 * What a person would read on an HTML page, as Markdown-ish text: Mozilla's Readability (the
 * Firefox Reader View) finds the main content on a linkedom DOM, dropping menus, footers,
 * cookie banners and sidebars. When it finds no article (a forum index, a link list, a tiny
 * page), the fallback drops the usual furniture and reads `main` (or the body).
 */
export function readablePage(html: string, options: ReadablePageOptions): PageText {
  const article = readArticle(html, options);
  if (article !== undefined) return article;
  const document = parseDocument(html);
  const title = cleanTitle(document.title);
  for (const element of Array.from(document.querySelectorAll(BOILERPLATE_SELECTOR)))
    element.remove();
  const main =
    document.querySelector('main, [role="main"]') ??
    document.querySelector('article') ??
    document.body ??
    document;
  return {
    title,
    text: toMarkdownText(main, { baseUrl: options.url, maxChars: options.maxChars }),
  };
}

function readArticle(html: string, options: ReadablePageOptions): PageText | undefined {
  const document = parseDocument(html);
  let article: ReturnType<Readability<DomNode>['parse']>;
  try {
    // Readability's types name the DOM library's Document (not compiled in: any); linkedom's is one.
    const reader = new Readability<DomNode>(document, {
      maxElemsToParse: MAX_ELEMENTS,
      serializer: (node: DomNode) => node,
    });
    article = reader.parse();
  } catch {
    return undefined; // too many elements, or a page Readability cannot walk
  }
  const content = article?.content;
  if (content === null || content === undefined) return undefined;
  if ((article?.textContent ?? '').trim().length < MIN_ARTICLE_CHARS) return undefined;
  const text = toMarkdownText(content, { baseUrl: options.url, maxChars: options.maxChars });
  return { title: cleanTitle(article?.title ?? document.title), text };
}

function parseDocument(html: string): QueryableDocument {
  // linkedom needs an <html> root to build head and body; a fragment gets one.
  const page = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><body>${html}</body></html>`;
  const window: { document: QueryableDocument } = parseHTML(page) as {
    document: QueryableDocument;
  };
  return window.document;
}

function cleanTitle(title: string | null | undefined): string | undefined {
  const collapsed = (title ?? '').replace(/\s+/g, ' ').trim();
  return collapsed === '' ? undefined : collapsed;
}
