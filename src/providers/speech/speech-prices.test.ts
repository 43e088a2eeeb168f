import { describe, expect, it } from 'vitest';
import { ModelCatalog } from '../model-catalog.ts';
import { dollarsOf } from '../model-price.ts';
import { speechCostOf, speechPriceOf } from './speech-prices.ts';

describe('speech prices', () => {
  const catalog = new ModelCatalog();

  it("are OpenAI's list prices when speech goes to OpenAI", () => {
    const whisper = speechPriceOf({
      catalog,
      provider: 'openai',
      model: 'whisper-1',
      officialApi: true,
    });
    expect(dollarsOf(speechCostOf(whisper, { seconds: 90 }))).toBeCloseTo(0.009, 9);
    const tts = speechPriceOf({ catalog, provider: 'openai', model: 'tts-1', officialApi: true });
    expect(dollarsOf(speechCostOf(tts, { characters: 2_000 }))).toBeCloseTo(0.03, 9);
  });

  it("never take a chat model's token price for a speech model of a similar name", () => {
    // The catalogue matches gpt-4o-mini-tts to the gpt-4o-mini family; its token price is no speech rate.
    const price = speechPriceOf({
      catalog,
      provider: 'openai',
      model: 'gpt-4o-mini-tts',
      officialApi: true,
    });
    expect(price?.perMillionCharacters).toBe(15);
  });

  it('cost nothing on a local server, unless the operator priced the model', () => {
    expect(
      speechPriceOf({ catalog, provider: 'openai', model: 'whisper-1', officialApi: false }),
    ).toBeUndefined();
    const priced = new ModelCatalog({
      models: {
        kokoro: {
          provider: 'openai',
          price: { inputPerMillion: 0, outputPerMillion: 0, perMillionCharacters: 1 },
        },
      },
    });
    expect(
      speechPriceOf({ catalog: priced, provider: 'openai', model: 'kokoro', officialApi: false })
        ?.perMillionCharacters,
    ).toBe(1);
  });
});
