/**
 * `npm run build` (scripts/build.mjs): src/ as the JavaScript `npm start` runs, without Node's
 * TypeScript stripper in the running process.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { toJavaScript } from '../scripts/build.mjs';
import { startEntry } from './support/start-flags.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from './support/test-resources.ts';

const strip: Parameters<typeof toJavaScript>[1] = (code, options) =>
  stripTypeScriptTypes(code, options);

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

describe('the build', () => {
  it('erases types in place and points relative .ts imports at .js, nothing else', () => {
    const source = [
      "import type { A } from './a.ts';",
      "import { b } from '../b/b.ts';",
      "export { c } from './c.ts';",
      "const d = await import('./d/d.ts');",
      "import pg from 'pg';",
      "const label: string = 'see notes.ts';",
      'function f(x: number): number { return x; }',
    ].join('\n');
    const built = toJavaScript(source, strip);
    expect(built.split('\n')).toHaveLength(7);
    expect(built).toContain("from '../b/b.js'");
    expect(built).toContain("from './c.js'");
    expect(built).toContain("import('./d/d.js')");
    expect(built).toContain("from 'pg'");
    // Not a relative specifier: left alone.
    expect(built).toContain("'see notes.ts'");
    // Same lines and columns as the source, so stack traces point at the .ts lines.
    expect(built.split('\n')[6]?.indexOf('return x')).toBe(
      source.split('\n')[6]?.indexOf('return x'),
    );
  });

  it('builds every module of src/ (tests left out) and the files they read', () => {
    const entry = startEntry();
    expect(path.relative(process.cwd(), entry)).toBe(path.join('dist', 'main.js'));
    const dist = path.dirname(entry);
    const built = filesUnder(dist).map((file) => path.relative(dist, file));
    const sources = filesUnder(path.resolve('src'))
      .map((file) => path.relative(path.resolve('src'), file))
      .filter((file) => !file.endsWith('.test.ts') && !file.includes('__snapshots__'));
    expect(built.filter((file) => file !== '.build-stamp').sort()).toEqual(
      sources.map((file) => file.replace(/\.ts$/, '.js')).sort(),
    );
    for (const file of built.filter((name) => name.endsWith('.js'))) {
      expect(readFileSync(path.join(dist, file), 'utf8'), file).not.toMatch(
        /(["'])\.\.?\/[^"'\n]*\.ts\1/,
      );
    }
    expect(statSync(path.join(dist, 'bot/context/summary/summary-prompt.md')).isFile()).toBe(true);
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
