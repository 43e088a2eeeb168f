import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dollarsOf, nanoUsdOf, speechCost, tokenCost, type ModelPrice } from './model-price.ts';

const tokens = fc.integer({ min: 0, max: 50_000_000 });
const usage = fc
  .record({
    inputTokens: tokens,
    cachedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    outputTokens: tokens,
  })
  .map(({ inputTokens, cachedShare, outputTokens }) => ({
    inputTokens,
    cachedInputTokens: Math.floor(inputTokens * cachedShare),
    outputTokens,
  }));
const dollars = fc.double({ min: 0, max: 200, noNaN: true });
const price: fc.Arbitrary<ModelPrice> = fc
  .record({
    input: dollars,
    output: dollars,
    cachedShare: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ input, output, cachedShare }) => ({
    inputPerMillion: input,
    cachedInputPerMillion: input * cachedShare,
    outputPerMillion: output,
  }));

describe('tokenCost', () => {
  it('charges each kind of token at its own price per million', () => {
    const cost = tokenCost(
      { inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 100_000 },
      { inputPerMillion: 1.25, cachedInputPerMillion: 0.125, outputPerMillion: 10 },
    );
    // 600k × $1.25/M + 400k × $0.125/M + 100k × $10/M = $0.75 + $0.05 + $1.00
    expect(dollarsOf(cost)).toBeCloseTo(1.8, 9);
  });

  it('costs nothing for a model without a price (a local server)', () => {
    expect(
      tokenCost({ inputTokens: 10_000, cachedInputTokens: 0, outputTokens: 500 }, undefined),
    ).toBe(0);
  });

  it('charges cached input at the input price when the model lists no cached price', () => {
    const price = { inputPerMillion: 2, outputPerMillion: 8 };
    expect(
      tokenCost({ inputTokens: 1_000, cachedInputTokens: 1_000, outputTokens: 0 }, price),
    ).toBe(tokenCost({ inputTokens: 1_000, cachedInputTokens: 0, outputTokens: 0 }, price));
  });

  it('is additive over calls, up to one rounding per kind of token', () => {
    fc.assert(
      fc.property(usage, usage, price, (first, second, at) => {
        const together = tokenCost(
          {
            inputTokens: first.inputTokens + second.inputTokens,
            cachedInputTokens: first.cachedInputTokens + second.cachedInputTokens,
            outputTokens: first.outputTokens + second.outputTokens,
          },
          at,
        );
        expect(
          Math.abs(together - tokenCost(first, at) - tokenCost(second, at)),
        ).toBeLessThanOrEqual(3);
      }),
    );
  });

  it('never falls when more tokens are spent, and is never negative', () => {
    fc.assert(
      fc.property(
        usage,
        price,
        fc.nat(1_000_000),
        fc.nat(1_000_000),
        (base, at, moreIn, moreOut) => {
          const cost = tokenCost(base, at);
          expect(cost).toBeGreaterThanOrEqual(0);
          const more = {
            ...base,
            inputTokens: base.inputTokens + moreIn,
            outputTokens: base.outputTokens + moreOut,
          };
          expect(tokenCost(more, at)).toBeGreaterThanOrEqual(cost);
        },
      ),
    );
  });

  it('never charges a cached token more than an uncached one when the cache is cheaper', () => {
    fc.assert(
      fc.property(usage, price, (spent, at) => {
        const uncached = { ...spent, cachedInputTokens: 0 };
        expect(tokenCost(spent, at)).toBeLessThanOrEqual(tokenCost(uncached, at) + 2);
      }),
    );
  });
});

describe('speechCost', () => {
  it('charges audio per minute and synthesis per million characters', () => {
    const price = {
      inputPerMillion: 0,
      outputPerMillion: 0,
      perMinute: 0.006,
      perMillionCharacters: 15,
    };
    expect(dollarsOf(speechCost({ minutes: 10 }, price))).toBeCloseTo(0.06, 9);
    expect(dollarsOf(speechCost({ characters: 2_000 }, price))).toBeCloseTo(0.03, 9);
    expect(speechCost({ minutes: 10 }, undefined)).toBe(0);
  });
});

describe('nanoUsdOf', () => {
  it('round-trips a budget in dollars with cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000_00 }), (cents) => {
        expect(Math.round(dollarsOf(nanoUsdOf(cents / 100)) * 100)).toBe(cents);
      }),
    );
  });
});
