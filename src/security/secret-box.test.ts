import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SecretError } from '../core/errors.ts';
import { SecretBox } from './secret-box.ts';

describe('SecretBox', () => {
  const box = new SecretBox(SecretBox.generateKey());

  it('round-trips any text and never stores it in the clear', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 12 }), fc.string(), (plaintext, context) => {
        const sealed = box.seal(plaintext, context);
        expect(Buffer.from(sealed, 'base64').includes(Buffer.from(plaintext, 'utf8'))).toBe(false);
        expect(box.open(sealed, context)).toBe(plaintext);
      }),
    );
  });

  it('seals the same text differently each time (random IV)', () => {
    expect(box.seal('key', 'ctx')).not.toBe(box.seal('key', 'ctx'));
  });

  it('fails loudly with a wrong key', () => {
    const sealed = box.seal('sk-123', 'scope:1:api_key');
    const other = new SecretBox(SecretBox.generateKey());
    expect(() => other.open(sealed, 'scope:1:api_key')).toThrow(SecretError);
  });

  it('fails loudly on tampering and on another context', () => {
    const sealed = Buffer.from(box.seal('sk-123', 'scope:1:api_key'), 'base64');
    const last = sealed.length - 1;
    sealed[last] = (sealed[last] ?? 0) ^ 1;
    expect(() => box.open(sealed.toString('base64'), 'scope:1:api_key')).toThrow(/authentication/);
    expect(() => box.open(box.seal('sk-123', 'scope:1:api_key'), 'scope:2:api_key')).toThrow(
      SecretError,
    );
  });

  it('rejects an unknown format version', () => {
    const sealed = Buffer.from(box.seal('x', 'c'), 'base64');
    sealed[0] = 9;
    expect(() => box.open(sealed.toString('base64'), 'c')).toThrow(/unknown format/);
  });

  it('opens values sealed before a key rotation and asks for a reseal', () => {
    const oldKey = SecretBox.generateKey();
    const sealedWithOld = new SecretBox(oldKey).seal('sk-old', 'c');
    const rotated = new SecretBox(SecretBox.generateKey(), [oldKey]);
    expect(rotated.open(sealedWithOld, 'c')).toBe('sk-old');
    expect(rotated.needsReseal(sealedWithOld)).toBe(true);
    expect(rotated.needsReseal(rotated.seal('sk-new', 'c'))).toBe(false);
  });

  it('tells which key sealed a value without opening it', () => {
    const oldKey = SecretBox.generateKey();
    const rotated = new SecretBox(SecretBox.generateKey(), [oldKey]);
    expect(rotated.sealedWith(rotated.seal('a', 'c'))).toBe('current');
    expect(rotated.sealedWith(new SecretBox(oldKey).seal('a', 'c'))).toBe('previous');
    expect(rotated.sealedWith(box.seal('a', 'c'))).toBe('unknown');
  });

  it('refuses keys of the wrong length', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(SecretError);
  });
});
