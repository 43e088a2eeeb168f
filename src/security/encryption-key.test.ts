import { mkdtempSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import { silentLogger } from '../core/logger.ts';
import { GENERATED_KEY_FILE, resolveEncryptionKey } from './encryption-key.ts';

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger: Logger = {
    ...silentLogger,
    warn: (first: object | string, second?: string) => {
      warnings.push(typeof first === 'string' ? first : (second ?? ''));
    },
  };
  return { logger, warnings };
}

describe('resolveEncryptionKey', () => {
  it('uses the configured key as is', () => {
    const key = Buffer.alloc(32, 1);
    expect(
      resolveEncryptionKey({ configured: key, dataDir: '/nonexistent', logger: silentLogger }),
    ).toBe(key);
  });

  it('generates a key once into DATA_DIR with 0600 permissions, warns, then reuses it', () => {
    const dataDir = path.join(temporaryFolder('key-'), 'data');
    const { logger, warnings } = recordingLogger();
    const first = resolveEncryptionKey({ configured: undefined, dataDir, logger });
    const file = path.join(dataDir, GENERATED_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.length).toBe(32);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/BOT_ENCRYPTION_KEY/);
    const second = resolveEncryptionKey({ configured: undefined, dataDir, logger });
    expect(second.equals(first)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.toString('base64'));
  });

  it('refuses a damaged key file rather than silently replacing it', () => {
    const dataDir = temporaryFolder('key-');
    writeFileSync(path.join(dataDir, GENERATED_KEY_FILE), 'not-a-key');
    expect(() =>
      resolveEncryptionKey({ configured: undefined, dataDir, logger: silentLogger }),
    ).toThrow(ConfigError);
  });
});

/** A temporary folder removed when the current test ends, passed or failed. */
function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
