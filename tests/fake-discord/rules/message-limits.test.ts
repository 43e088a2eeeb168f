import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nestProblems } from './discord-error.ts';
import { DISCORD_LIMITS, isEmptyMessage, validateMessageBody } from './message-limits.ts';

describe('message limits', () => {
  it('accepts content up to 2000 characters and rejects anything longer', () => {
    fc.assert(
      fc.property(fc.nat({ max: 4000 }), (length) => {
        const problems = validateMessageBody({ content: 'a'.repeat(length) });
        return (problems.length === 0) === length <= DISCORD_LIMITS.content;
      }),
    );
  });

  it('words an over-length content error the way Discord nests it', () => {
    expect(nestProblems(validateMessageBody({ content: 'a'.repeat(2001) }))).toEqual({
      content: {
        _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }],
      },
    });
  });

  it('checks each embed field and the 6000-character total across embeds', () => {
    const problems = validateMessageBody({
      embeds: [
        { title: 't'.repeat(257), description: 'd'.repeat(4000) },
        {
          description: 'd'.repeat(2000),
          fields: [
            { name: 'n', value: 'v'.repeat(1025) },
            { name: '', value: 'x' },
          ],
        },
      ],
    });
    expect(nestProblems(problems)).toEqual({
      embeds: {
        _errors: [
          { code: 'MAX_EMBED_SIZE_EXCEEDED', message: 'Embed size exceeds maximum size of 6000' },
        ],
        0: {
          title: {
            _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 256 or fewer in length.' }],
          },
        },
        1: {
          fields: {
            0: {
              value: {
                _errors: [
                  { code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 1024 or fewer in length.' },
                ],
              },
            },
            1: {
              name: {
                _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }],
              },
            },
          },
        },
      },
    });
  });

  it('limits a message to 10 embeds and 5 action rows of 5', () => {
    expect(
      validateMessageBody({ embeds: Array.from({ length: 11 }, () => ({ title: 'x' })) }),
    ).toHaveLength(1);
    const row = {
      type: 1,
      components: Array.from({ length: 6 }, (_, index) => ({ type: 2, custom_id: `b${index}` })),
    };
    expect(validateMessageBody({ components: [row] })[0]?.path).toEqual([
      'components',
      0,
      'components',
    ]);
  });

  it('treats whitespace-only content with nothing else as an empty message', () => {
    const nothing = { embeds: [], attachments: 0, components: [], stickers: 0, poll: false };
    expect(isEmptyMessage({ ...nothing, content: ' \n ' })).toBe(true);
    expect(isEmptyMessage({ ...nothing, content: '', attachments: 1 })).toBe(false);
  });
});
