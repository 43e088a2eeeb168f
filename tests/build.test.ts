/**
 * `npm run build` (scripts/build.mjs): src/ bundled into the JavaScript `npm start` runs, without
 * Node's TypeScript stripper in the running process.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { EXTERNAL_PACKAGES } from '../scripts/build.mjs';
import { startEntry } from './support/start-flags.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from './support/test-resources.ts';

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

describe('the build', () => {
  it('bundles the sources and the packages they import, leaving out those that find their own files', () => {
    const entry = startEntry();
    expect(path.relative(process.cwd(), entry)).toBe(path.join('dist', 'main.js'));
    const dist = path.dirname(entry);
    const files = filesUnder(dist).filter((file) => file.endsWith('.js'));
    expect(
      files.every(
        (file) => path.dirname(file) === dist || path.dirname(file) === path.join(dist, 'chunks'),
      ),
    ).toBe(true);
    // esbuild heads each bundled module's code with a comment naming its file.
    const text = files.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(text).toContain('// src/bot/discord-bot.ts');
    expect(text).toContain('// node_modules/discord.js/');
    for (const name of EXTERNAL_PACKAGES) {
      expect(text, name).not.toContain(`// node_modules/${name}/`);
    }
    // PGlite is imported from node_modules at run time.
    expect(text).toMatch(/from "@electric-sql\/pglite"|import\("@electric-sql\/pglite"\)/);
  });

  it('runs: the built bot reports a bad setting in one line, as the sources do', () => {
    const directory = makeTemporaryFolder('built-start-');
    onTestFinished(() => removeTemporaryFolder(directory));
    const result = spawnSync(process.execPath, [startEntry()], {
      cwd: directory,
      env: { PATH: process.env.PATH ?? '', DISCORD_TOKEN: 'x', LOG_LEVEL: 'loud' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/LOG_LEVEL/)]);
  });

  it("leaves Node's TypeScript stripper out of the running bot", () => {
    const directory = makeTemporaryFolder('built-start-');
    onTestFinished(() => removeTemporaryFolder(directory));
    const report = `process.on('exit', () => process.stdout.write(JSON.stringify(process.moduleLoadList)))`;
    const loaded = (entry: string): string[] => {
      const result = spawnSync(
        process.execPath,
        ['--import', `data:text/javascript,${encodeURIComponent(report)}`, entry],
        {
          cwd: directory,
          env: { PATH: process.env.PATH ?? '', DISCORD_TOKEN: 'x', LOG_LEVEL: 'loud' },
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      return (JSON.parse(result.stdout) as string[]).filter((name) => name.includes('amaro'));
    };
    expect(loaded(startEntry())).toEqual([]);
    // The check can fail: the sources load it.
    expect(loaded(path.resolve('src/main.ts'))).not.toEqual([]);
  });
});
