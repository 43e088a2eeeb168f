import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { htmlToText } from './html-to-text.ts';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const withoutWhitespace = (text: string) => text.replace(/\s+/g, '');

describe('htmlToText', () => {
  it('keeps the words and drops scripts, styles, comments and tags', () => {
    const page = htmlToText(`<!doctype html><html><head><title>Cats &amp; Dogs</title>
      <style>body { color: red }</style><script>alert("<p>x</p>")</script></head>
      <body><h1>Pets</h1><!-- hidden --><p>Cats are <b>great</b>&nbsp;pets.</p>
      <ul><li>Tabby</li><li>Siamese</li></ul><a href="/x" title="a>b">More</a>
      <p>5 &lt; 6 &#x1F431; &#233;</p><noscript>enable JS</noscript></body></html>`);
    expect(page.title).toBe('Cats & Dogs');
    expect(page.text).toBe(
      'Pets\n\nCats are great pets.\n\n- Tabby\n- Siamese\nMore\n\n5 < 6 🐱 é',
    );
  });

  it('never loses a character of text nor lets markup through, whatever the tags', () => {
    const tags = fc.constantFrom('p', 'div', 'span', 'b', 'h2', 'td', 'a', 'br', 'blockquote');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(tags, fc.string({ maxLength: 30 })), { maxLength: 12 }),
        (nodes) => {
          const html = nodes
            .map(([tag, text]) => `<${tag} class="x">${escapeHtml(text)}</${tag}>`)
            .join('');
          const text = htmlToText(`<body>${html}</body>`).text;
          const expected = nodes.map(([, content]) => content).join('');
          // Equal without whitespace: nothing lost, and no tag name or attribute leaked in.
          expect(withoutWhitespace(text)).toBe(withoutWhitespace(expected));
        },
      ),
    );
  });

  it('drops an unterminated script to the end instead of leaking it', () => {
    expect(htmlToText('<p>hello</p><script>var secret = 1;').text).toBe('hello');
  });
});
