import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { SecretError } from '../core/errors.ts';

/**
 * Encryption for secrets at rest (members' API keys). AES-256-GCM; the stored form is
 * base64 of:
 *
 *   version (1 byte) | key id (4 bytes) | iv (12 bytes) | auth tag (16 bytes) | ciphertext
 *
 * The version byte lets the format change later; the key id names which key sealed the value,
 * so after a rotation old values still open with a retired key and are resealed with the
 * current one. `context` (e.g. "scope:123:api_key") is bound as associated data: a ciphertext
 * copied to another row does not open. A wrong key or tampered data fails loudly, never
 * returns garbage.
 */
export class SecretBox {
  static readonly FORMAT_VERSION = 1;
  static readonly KEY_BYTES = 32;
  private static readonly IV_BYTES = 12;
  private static readonly TAG_BYTES = 16;
  private static readonly KEY_ID_BYTES = 4;
  private static readonly HEADER_BYTES =
    1 + SecretBox.KEY_ID_BYTES + SecretBox.IV_BYTES + SecretBox.TAG_BYTES;

  private readonly current: { id: Buffer; key: Buffer };
  private readonly keysById: Map<string, Buffer>;

  /** `key` seals new values; `retiredKeys` only open values sealed before a rotation. */
  constructor(key: Buffer, retiredKeys: readonly Buffer[] = []) {
    for (const candidate of [key, ...retiredKeys]) {
      if (candidate.length !== SecretBox.KEY_BYTES) {
        throw new SecretError('bad_key', `encryption keys must be ${SecretBox.KEY_BYTES} bytes`);
      }
    }
    this.current = { id: keyId(key), key };
    this.keysById = new Map(
      [key, ...retiredKeys].map((candidate) => [keyId(candidate).toString('hex'), candidate]),
    );
  }

  static generateKey(): Buffer {
    return randomBytes(SecretBox.KEY_BYTES);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(SecretBox.IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([
      Buffer.of(SecretBox.FORMAT_VERSION),
      this.current.id,
      iv,
      cipher.getAuthTag(),
      ciphertext,
    ]).toString('base64');
  }

  open(sealed: string, context: string): string {
    const data = Buffer.from(sealed, 'base64');
    if (data.length < SecretBox.HEADER_BYTES || data[0] !== SecretBox.FORMAT_VERSION) {
      throw new SecretError('format', 'stored secret has an unknown format');
    }
    let offset = 1;
    const id = data.subarray(offset, (offset += SecretBox.KEY_ID_BYTES));
    const iv = data.subarray(offset, (offset += SecretBox.IV_BYTES));
    const tag = data.subarray(offset, (offset += SecretBox.TAG_BYTES));
    const key = this.keysById.get(id.toString('hex'));
    if (key === undefined) {
      throw new SecretError(
        'wrong_key',
        'stored secret was sealed with a different BOT_ENCRYPTION_KEY; restore that key or set the secret again',
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data.subarray(offset)), decipher.final()]).toString(
        'utf8',
      );
    } catch (error) {
      throw new SecretError('tampered', 'stored secret failed authentication', { cause: error });
    }
  }

  /** True when the value was sealed with a retired key and should be resealed. */
  needsReseal(sealed: string): boolean {
    return this.sealedWith(sealed) !== 'current';
  }

  /**
   * Which of this box's keys sealed a value, by its key id (nothing is decrypted):
   * `previous` opens with a retired key and should be resealed; `unknown` opens with none.
   */
  sealedWith(sealed: string): 'current' | 'previous' | 'unknown' {
    const id = Buffer.from(sealed, 'base64').subarray(1, 1 + SecretBox.KEY_ID_BYTES);
    if (id.equals(this.current.id)) return 'current';
    return this.keysById.has(id.toString('hex')) ? 'previous' : 'unknown';
  }
}

function keyId(key: Buffer): Buffer {
  return createHash('sha256').update(key).digest().subarray(0, 4);
}
