import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readablePage } from './readable-page.ts';

const fixture = (name: string) =>
  readFileSync(new URL(`../../../tests/corpora/pages/${name}.html`, import.meta.url), 'utf8');
const read = (html: string, maxChars = 12_000) =>
  readablePage(html, { url: 'https://example.com/docs/configuration', maxChars });

describe('readablePage on saved page shapes', () => {
  it('reads a news article: the story in order, without cookie banner, menus, sidebar or footer', () => {
    const page = read(fixture('article'));
    expect(page.title).toBe('Why do cats purr? Scientists finally have an answer');
    expect(page.text).toMatch(/^For centuries, the purr of a domestic cat/);
    expect(page.text).toContain('## How the experiment worked');
    expect(page.text).toContain(
      '[full paper in Current Biology](https://example.org/papers/purr-2025)',
    );
    expect(page.text).toContain(
      '- Eight larynxes were examined after natural deaths.\n- All of them purred',
    );
    expect(page.text).toContain('> "It is a bit like the way a flag flutters');
    expect(page.text.indexOf('How the experiment')).toBeLessThan(
      page.text.indexOf('What it means for cat owners'),
    );
    for (const boilerplate of ['cookies', 'Accept all', 'Subscribe today', 'Related stories'])
      expect(page.text).not.toContain(boilerplate);
    expect(page.text).not.toContain('All rights reserved');
    expect(page.text).not.toContain('dataLayer');
  });

  it('reads a docs page: headings, code, table rows and a numbered list; no sidebar or search', () => {
    const page = read(fixture('docs'));
    expect(page.text).toContain('`widget.toml`');
    expect(page.text).toContain('```\n[build]\noutput = "dist"\ncache = true\n```');
    expect(page.text).toContain('build.cache | false | Reuse results of unchanged inputs');
    expect(page.text).toContain(
      '### Precedence\n\n1. Command-line flags\n2. Environment variables',
    );
    // A relative link, made absolute against the page's URL.
    expect(page.text).toContain('[Plugins](https://example.com/plugins)');
    for (const boilerplate of ['Troubleshooting', 'Changelog', 'Search docs', 'Edit this page'])
      expect(page.text).not.toContain(boilerplate);
  });

  it('reads a forum thread: every post, without the forum menu, breadcrumb or similar topics', () => {
    const page = read(fixture('forum'));
    expect(page.text).toContain('drops all Wi-Fi clients for about a minute');
    expect(page.text).toContain('scheduled DFS scan');
    expect(page.text).toContain('moved 5 GHz to channel 36');
    for (const boilerplate of ['Log in', 'Sign up', 'Similar topics', 'Powered by', 'Routers'])
      expect(page.text).not.toContain(boilerplate);
  });

  it('reads a short page behind heavy navigation through the fallback, dropping every menu link', () => {
    const page = read(fixture('heavy-navigation'));
    expect(page.title).toBe('Opening hours | MegaStore');
    expect(page.text).toBe(
      "# Opening hours\n\nOur Shibuya store is open from 10:00 to 21:00 every day except New Year's Day.\n\nHoliday hours may differ; call 03-1234-5678 before you visit.",
    );
  });

  it('stops at the size cap', () => {
    const page = read(fixture('article'), 300);
    expect(page.text.length).toBeLessThan(700);
    expect(page.text).toMatch(/^For centuries/);
  });
});

describe('readablePage on any markup', () => {
  it('decodes entities and drops scripts, styles, comments and an unterminated script', () => {
    const page = read(`<!doctype html><html><head><title>Cats &amp; Dogs</title>
      <style>body { color: red }</style><script>alert("<p>x</p>")</script></head>
      <body><p>Cats are <b>great</b>&nbsp;pets.</p><!-- hidden --><p>5 &lt; 6 &#x1F431; &#233;</p>
      <noscript>enable JS</noscript><script>var secret = 1;`);
    expect(page.title).toBe('Cats & Dogs');
    expect(page.text).toBe('Cats are great pets.\n\n5 < 6 🐱 é');
  });

  it('never loses a character of text nor lets markup through, whatever the tags', () => {
    const tags = fc.constantFrom('p', 'div', 'span', 'b', 'h2', 'td', 'a', 'blockquote', 'li');
    const escape = (text: string) =>
      text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    // Whitespace and the Markdown markers the converter adds do not count.
    const essence = (text: string) => text.replace(/[\s#>|`-]/g, '');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(tags, fc.string({ maxLength: 30 })), { maxLength: 12 }),
        (nodes) => {
          const html = nodes
            .map(([tag, text]) => `<${tag} class="x">${escape(text)}</${tag}>`)
            .join('');
          const text = read(`<body>${html}</body>`).text;
          expect(essence(text)).toBe(essence(nodes.map(([, content]) => content).join('')));
        },
      ),
      { numRuns: 200 },
    );
  });
});
