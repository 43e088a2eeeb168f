import { describe, expect, it } from 'vitest';
import { ToolError } from '../../core/errors.ts';
import type { ToolContext } from '../../core/tool.ts';
import { actingMember } from './acting-member.ts';

const base: ToolContext = {
  scopeId: 'g',
  guildId: 'g',
  channelId: 'c',
  userId: '2',
  messageId: 'm',
  turnId: 't',
  memberPermissions: '0',
  locale: 'en-US',
};

describe('actingMember', () => {
  it('is the only author when nobody is named, and refuses naming anyone else', () => {
    const single = { ...base, authors: [{ id: '2', name: 'Bob' }] };
    expect(actingMember(single, undefined)).toEqual({ id: '2', name: 'Bob' });
    expect(actingMember(single, '@bob')).toEqual({ id: '2', name: 'Bob' });
    expect(() => actingMember(single, 'alice')).toThrow(ToolError);
  });

  it('falls back to userId for a context without authors', () => {
    expect(actingMember(base, undefined).id).toBe('2');
    expect(() => actingMember(base, '1')).toThrow(/not one of the members/);
  });

  it('requires a name among several authors and matches by id or display name', () => {
    const batch = {
      ...base,
      authors: [
        { id: '1', name: 'Alice' },
        { id: '2', name: 'Bob' },
      ],
    };
    expect(() => actingMember(batch, undefined)).toThrow(/several members/);
    expect(actingMember(batch, 'ALICE').id).toBe('1');
    expect(actingMember(batch, '2').id).toBe('2');
    expect(() => actingMember(batch, 'Carol')).toThrow(/not one of the members/);
  });

  it('refuses an ambiguous name rather than picking one', () => {
    const twins = {
      ...base,
      authors: [
        { id: '1', name: 'Sam' },
        { id: '2', name: 'sam' },
      ],
    };
    expect(() => actingMember(twins, 'sam')).toThrow(/not one of the members/);
    expect(actingMember(twins, '2').id).toBe('2');
  });
});
