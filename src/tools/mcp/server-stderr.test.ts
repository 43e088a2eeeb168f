import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../../../tests/tools/support/recording-logger.ts';
import { MAX_STDERR_LINE, ServerStderr } from './server-stderr.ts';

const TOKEN = 'ghp_0123456789abcdefSECRET';

function stderrOf(chunks: readonly string[]) {
  const logger = recordingLogger();
  const stderr = new ServerStderr({ logger, secrets: [TOKEN] });
  for (const chunk of chunks) stderr.push(Buffer.from(chunk));
  stderr.flush();
  return logger.entries;
}

describe('ServerStderr', () => {
  it('redacts a configured secret even when it arrives split across two reads', () => {
    const entries = stderrOf([`auth failed with token ghp_01234`, `56789abcdefSECRET\nnext line`]);
    expect(entries.map((entry) => entry.fields.line)).toEqual([
      'auth failed with token [REDACTED]',
      'next line',
    ]);
    expect(JSON.stringify(entries)).not.toContain('ghp_0123456789');
  });

  it('logs at debug only, never info, and skips blank lines', () => {
    const entries = stderrOf(['starting\n\n\r\n', 'ready\r\n']);
    expect(entries.map((entry) => [entry.level, entry.fields.line])).toEqual([
      ['debug', 'starting'],
      ['debug', 'ready'],
    ]);
  });

  it('caps a long line, and a runaway line without a newline', () => {
    const entries = stderrOf(['x'.repeat(20_000)]);
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries)
      expect(String(entry.fields.line).length).toBeLessThanOrEqual(MAX_STDERR_LINE + 1);
  });
});
