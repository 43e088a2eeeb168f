import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { makeTemporaryFolder, removeTemporaryFolder } from './support/test-resources.ts';

const ENTRYPOINT = path.resolve('src/main.ts');

function start(environment: Record<string, string>): ReturnType<typeof spawnSync> {
  const directory = makeTemporaryFolder('start-');
  onTestFinished(() => removeTemporaryFolder(directory));
  // A ceiling for a process that should exit at once (spawnSync then kills it).
  return spawnSync(process.execPath, [ENTRYPOINT], {
    cwd: directory,
    env: { PATH: process.env.PATH ?? '', ...environment },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('start-up', () => {
  it('exits non-zero with one line naming DISCORD_TOKEN when there is no .env', () => {
    const result = start({});
    expect(result.status).toBe(1);
    const lines = String(result.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/DISCORD_TOKEN/);
    expect(String(result.stderr)).not.toMatch(/\s+at\s/);
  });

  it('prints one line per bad key and no stack trace', () => {
    const result = start({ DISCORD_TOKEN: 'x', LOG_LEVEL: 'loud', METRICS_PORT: 'abc' });
    expect(result.status).toBe(1);
    const lines = String(result.stderr).trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/LOG_LEVEL/),
      expect.stringMatching(/METRICS_PORT/),
    ]);
  });
});
