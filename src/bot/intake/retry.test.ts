import { describe, expect, it } from 'vitest';
import { refusalText } from '../i18n/member-text.ts';
import { retryRefusal } from './retry.ts';

describe('a refused Retry press', () => {
  it('tells the presser of a refused Retry why, in the words of a refused message', () => {
    expect(refusalText(retryRefusal({ kind: 'rate_limited', seconds: 9 }), 'en')).toBe(
      "You're sending messages faster than I can answer. Try again in 9 s.",
    );
    const spent = {
      kind: 'budget_exhausted',
      who: 'server',
      spentTokens: 10,
      spentCost: 0,
      resetsInMs: 60_000,
    } as const;
    expect(retryRefusal({ kind: 'budget', refusal: spent })).toBe(spent);
    expect(retryRefusal({ kind: 'busy' })).toEqual({ kind: 'retry_busy' });
  });
});
