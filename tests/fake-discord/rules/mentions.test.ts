import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  pingsAnyone,
  resolvePings,
  validateAllowedMentions,
  type MentionResolutionInput,
} from './mentions.ts';

const ALICE = '111111111111111111';
const BOB = '222222222222222222';
const STRANGER = '999999999999999999';
const MENTIONABLE_ROLE = '333333333333333333';
const PRIVATE_ROLE = '444444444444444444';

function resolve(content: string, overrides: Partial<MentionResolutionInput> = {}) {
  return resolvePings({
    content,
    allowedMentions: undefined,
    repliedAuthorId: null,
    canMentionEveryone: true,
    isReachableUser: (id) => id === ALICE || id === BOB,
    roleMentionable: (id) =>
      id === MENTIONABLE_ROLE ? true : id === PRIVATE_ROLE ? false : undefined,
    ...overrides,
  });
}

describe('mention resolution', () => {
  it('parses users, roles and @everyone when allowed_mentions is absent (the default an edit falls back to)', () => {
    const pings = resolve(
      `@everyone <@${ALICE}> <@!${BOB}> <@&${MENTIONABLE_ROLE}> <@${STRANGER}>`,
    );
    expect(pings).toEqual({
      everyone: true,
      here: false,
      userIds: [ALICE, BOB],
      roleIds: [MENTIONABLE_ROLE],
      repliedUser: false,
    });
  });

  it('pings nobody with parse: []', () => {
    const pings = resolve(`@everyone @here <@${ALICE}> <@&${MENTIONABLE_ROLE}>`, {
      allowedMentions: { parse: [] },
    });
    expect(pingsAnyone(pings)).toBe(false);
  });

  it('pings exactly the listed users and roles', () => {
    const pings = resolve(`<@${ALICE}> <@${BOB}> <@&${MENTIONABLE_ROLE}> @everyone`, {
      allowedMentions: { users: [BOB], roles: [MENTIONABLE_ROLE] },
    });
    expect(pings).toMatchObject({ everyone: false, userIds: [BOB], roleIds: [MENTIONABLE_ROLE] });
  });

  it('needs MENTION_EVERYONE for @everyone/@here and for roles that are not mentionable', () => {
    const pings = resolve(`@here <@&${PRIVATE_ROLE}> <@&${MENTIONABLE_ROLE}>`, {
      canMentionEveryone: false,
    });
    expect(pings).toMatchObject({ everyone: false, here: false, roleIds: [MENTIONABLE_ROLE] });
    expect(resolve(`<@&${PRIVATE_ROLE}>`).roleIds).toEqual([PRIVATE_ROLE]);
  });

  it('pings the replied-to author only when replied_user is true or allowed_mentions is absent', () => {
    expect(resolve('ok', { repliedAuthorId: ALICE })).toMatchObject({
      userIds: [ALICE],
      repliedUser: true,
    });
    expect(
      resolve('ok', { repliedAuthorId: ALICE, allowedMentions: { parse: ['users'] } }).repliedUser,
    ).toBe(false);
    expect(
      resolve('ok', { repliedAuthorId: ALICE, allowedMentions: { parse: [], replied_user: true } })
        .userIds,
    ).toEqual([ALICE]);
  });

  it('never pings anyone with parse: [] and replied_user: false, whatever the content', () => {
    const token = fc.constantFrom(
      '@everyone',
      '@here',
      `<@${ALICE}>`,
      `<@!${BOB}>`,
      `<@&${MENTIONABLE_ROLE}>`,
      '`',
      '\n',
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(token, fc.string()), { maxLength: 30 }), (parts) => {
        const pings = resolve(parts.join(' '), {
          allowedMentions: { parse: [], replied_user: false },
          repliedAuthorId: ALICE,
        });
        return !pingsAnyone(pings) && !pings.repliedUser;
      }),
    );
  });
});

describe('allowed_mentions validation', () => {
  it('rejects parse and an explicit list of the same kind, in Discord words', () => {
    expect(validateAllowedMentions({ parse: ['users'], users: [ALICE] })).toEqual([
      {
        path: ['allowed_mentions'],
        error: {
          code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
          message: 'parse:["users"] and users: [ids...] are mutually exclusive.',
        },
      },
    ]);
    expect(validateAllowedMentions({ parse: ['users'], users: [] })).toEqual([]);
  });

  it('rejects unknown parse types', () => {
    expect(validateAllowedMentions({ parse: ['channels'] })[0]?.path).toEqual([
      'allowed_mentions',
      'parse',
      0,
    ]);
  });
});
