import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { SecretBox } from './secret-box.ts';

export const GENERATED_KEY_FILE = 'encryption.key';

/**
 * The key that seals stored secrets. From BOT_ENCRYPTION_KEY when set; otherwise (embedded
 * database only — config enforces that) loaded from, or generated once into,
 * DATA_DIR/encryption.key with 0600 permissions. Losing that file makes stored API keys
 * unreadable, hence the warning.
 */
export function resolveEncryptionKey(options: {
  configured: Buffer | undefined;
  dataDir: string;
  logger: Logger;
}): Buffer {
  if (options.configured !== undefined) return options.configured;
  const file = path.join(options.dataDir, GENERATED_KEY_FILE);
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== SecretBox.KEY_BYTES) {
      throw new ConfigError([
        `${file} does not hold a ${SecretBox.KEY_BYTES}-byte base64 key; restore it or set BOT_ENCRYPTION_KEY`,
      ]);
    }
    return key;
  }
  mkdirSync(options.dataDir, { recursive: true });
  const key = SecretBox.generateKey();
  writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  options.logger.warn(
    { file },
    'BOT_ENCRYPTION_KEY is not set: generated a key for stored secrets; back this file up (without it, saved API keys cannot be read)',
  );
  return key;
}
