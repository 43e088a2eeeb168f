import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HumanizerDegree } from '../../src/core/settings.ts';
import { deliverDeltas } from '../../src/stream/testing/text-pipeline.ts';
import {
  deltaSizes,
  essence,
  fencesBalanced,
  markdownText,
  protectedToken,
  splitBySizes,
} from './markdown-arbitraries.ts';

const degree = fc.constantFrom<HumanizerDegree>(0, 1, 2, 3);
const mode = fc.constantFrom('messages' as const, 'edit' as const);
const limit = fc.integer({ min: 200, max: 700 });

describe('the delivery pipeline, over arbitrary markdown-ish text and delta splits', () => {
  it('never hands the sink a message over the limit, an empty one, or one with unbalanced fences', async () => {
    await fc.assert(
      fc.asyncProperty(
        markdownText,
        deltaSizes,
        degree,
        mode,
        limit,
        async (text, sizes, level, delivery, messageLimit) => {
          const sink = await deliverDeltas(splitBySizes(text, sizes), {
            degree: level,
            mode: delivery,
            streamOptions: { messageLimit },
          });
          for (const call of sink.contentCalls()) {
            const content =
              call.type === 'push' ? call.chunk : call.type === 'update' ? call.content : '';
            expect(content.length).toBeLessThanOrEqual(messageLimit);
            expect(content.trim()).not.toBe('');
            expect(fencesBalanced(content)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('at degree 0 delivers exactly the input, apart from whitespace at joins and fence lines', async () => {
    await fc.assert(
      fc.asyncProperty(
        markdownText,
        deltaSizes,
        mode,
        limit,
        async (text, sizes, delivery, messageLimit) => {
          const sink = await deliverDeltas(splitBySizes(text, sizes), {
            degree: 0,
            mode: delivery,
            streamOptions: { messageLimit },
          });
          expect(essence(sink.messages.join('\n'))).toBe(essence(text));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('gives the same messages however the same text is split into deltas', async () => {
    await fc.assert(
      fc.asyncProperty(
        markdownText,
        deltaSizes,
        deltaSizes,
        degree,
        mode,
        limit,
        async (text, first, second, level, delivery, messageLimit) => {
          const options = { degree: level, mode: delivery, streamOptions: { messageLimit } };
          const whole = await deliverDeltas([text], options);
          const splitOnce = await deliverDeltas(splitBySizes(text, first), options);
          const splitTwice = await deliverDeltas(splitBySizes(text, second), options);
          expect(splitOnce.messages).toEqual(whole.messages);
          expect(splitTwice.messages).toEqual(whole.messages);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps every protected span byte-identical and within one message, at every degree', async () => {
    const withTokens = fc.tuple(
      fc.array(fc.tuple(markdownText, protectedToken), { minLength: 1, maxLength: 6 }),
      deltaSizes,
      degree,
      mode,
    );
    await fc.assert(
      fc.asyncProperty(withTokens, async ([pieces, sizes, level, delivery]) => {
        // Tokens stand apart (as a model writes them); the text around them is arbitrary.
        const text = pieces.map(([around, token]) => `${around}\n\n${token} \n\n`).join('');
        const sink = await deliverDeltas(splitBySizes(text, sizes), {
          degree: level,
          mode: delivery,
        });
        for (const [, token] of pieces) {
          expect(sink.messages.some((message) => message.includes(token))).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('keeps code inside code blocks byte-identical at every degree', async () => {
    const code = fc.array(fc.stringMatching(/^[A-Z][A-Za-z0-9 =;.]{0,30}$/), {
      minLength: 1,
      maxLength: 5,
    });
    const prose = fc.stringMatching(/^[A-Za-z .,!?\n]{0,300}$/);
    await fc.assert(
      fc.asyncProperty(prose, code, degree, deltaSizes, async (text, lines, level, sizes) => {
        const block = `\`\`\`ts\n${lines.join('\n')}\n\`\`\``;
        const reply = `${text}\n\n${block}\n\nAfter It.`;
        const sink = await deliverDeltas(splitBySizes(reply, sizes), { degree: level });
        expect(sink.messages.some((message) => message.includes(block))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});
