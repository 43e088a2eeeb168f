import { describe, expect, it } from 'vitest';
import { applyHeavyStyle, isAcronym } from './heavy-style.ts';

describe('applyHeavyStyle (degree 3)', () => {
  it('lowercases the text but keeps acronyms and protected spans', () => {
    expect(applyHeavyStyle('I think NASA and the APIs are Great.')).toBe(
      'i think NASA and the APIs are great',
    );
    expect(
      applyHeavyStyle(
        'Check https://Example.com/Path and `Const X` with <:Smile:123456789012345678>.',
      ),
    ).toBe('check https://Example.com/Path and `Const X` with <:Smile:123456789012345678>');
  });

  it('drops one trailing period, also inside closing markdown and quotes, but keeps an ellipsis', () => {
    expect(applyHeavyStyle('**Done.**')).toBe('**done**');
    expect(applyHeavyStyle('He said "Fine."')).toBe('he said "fine"');
    expect(applyHeavyStyle('Well...')).toBe('well...');
    expect(applyHeavyStyle('Sure!')).toBe('sure!');
    expect(applyHeavyStyle('これは本です。')).toBe('これは本です');
  });

  it('softens punctuation lightly', () => {
    expect(applyHeavyStyle('Yes — really; truly!!!')).toBe('yes, really, truly!');
    expect(applyHeavyStyle('Pages 1–5?? Sure')).toBe('pages 1–5? sure');
  });

  it('never touches markdown markers or code', () => {
    expect(applyHeavyStyle('# Heading\n> Quote — Here\n```\nA — B;\n```')).toBe(
      '# heading\n> quote, here\n```\nA — B;\n```',
    );
  });
});

describe('isAcronym', () => {
  it.each([
    ['NASA', true],
    ['APIs', true],
    ["GPU's", true],
    ['MP3', true],
    ['I', false],
    ["I'm", false],
    ['Hello', false],
    ['東京', false],
  ])('%s → %s', (word, expected) => {
    expect(isAcronym(word)).toBe(expected);
  });
});
