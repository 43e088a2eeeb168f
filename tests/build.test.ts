/**
 * `npm run build` (scripts/build.mjs): src/ bundled into the JavaScript `npm start` runs, without
 * Node's TypeScript stripper in the running process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import * as esbuild from 'esbuild';
import fc from 'fast-check';
import { asciiOnly, build, bundleOptions, EXTERNAL_PACKAGES } from '../scripts/build.mjs';
import { startEntry } from './support/start-flags.ts';
import { makeTemporaryFolder, removeTemporaryFolder } from './support/test-resources.ts';

/** A regular expression literal, `/body/flags`, as the engine reads it. */
function regExpOf(literal: string): RegExp {
  const end = literal.lastIndexOf('/');
  return new RegExp(literal.slice(1, end), literal.slice(end + 1));
}

describe('the build', () => {
  it('bundles the sources and the packages they import, leaving out those that find their own files', async () => {
    const directory = makeTemporaryFolder('bundle-');
    onTestFinished(() => removeTemporaryFolder(directory));
    const result = await esbuild.build({ ...bundleOptions(directory), logLevel: 'silent' });
    const inputs = Object.keys(result.metafile?.inputs ?? {});
    expect(inputs).toContain('src/bot/discord-bot.ts');
    expect(inputs.some((input) => input.startsWith('node_modules/discord.js/'))).toBe(true);
    for (const name of EXTERNAL_PACKAGES) {
      expect(inputs.filter((input) => input.startsWith(`node_modules/${name}/`))).toEqual([]);
    }
    const outputs = Object.keys(result.metafile?.outputs ?? {});
    const pglite = outputs.filter((output) =>
      result.metafile?.outputs[output]?.imports.some(
        (imported) => imported.path === '@electric-sql/pglite' && imported.external === true,
      ),
    );
    expect(pglite).toHaveLength(1);
  });

  it("writes main.js and its chunks as ASCII, keeping the build before's chunks for running bots", async () => {
    expect(path.relative(process.cwd(), startEntry())).toBe(path.join('dist', 'main.js'));
    // Its own folder: dist/ is what the other test files' bots run.
    const output = path.join(makeTemporaryFolder('build-'), 'dist');
    onTestFinished(() => removeTemporaryFolder(path.dirname(output)));
    const chunksOf = async (readable: boolean) => {
      await build(esbuild, { output, readable });
      const record = readFileSync(path.join(output, '.build-chunks'), 'utf8');
      return (record.split('\n')[0] ?? '').split(' ').filter((name) => name.endsWith('.js'));
    };
    const readable = await chunksOf(true);
    const built = await chunksOf(false);
    expect(built.length).toBeGreaterThan(1);
    // Most chunks differ between the two (a chunk of imports only is the same file in both).
    const replaced = readable.filter((name) => !built.includes(name));
    expect(replaced.length).toBeGreaterThan(built.length / 2);
    const files = ['main.js', ...built.map((name) => path.join('chunks', name))];
    for (const file of files) {
      // One character outside Latin-1 and V8 keeps the whole file's text at two bytes each.
      expect(readFileSync(path.join(output, file), 'utf8'), file).not.toMatch(/[\u0080-\uffff]/);
    }
    // A bot started before this build still finds the chunks it loads later.
    for (const name of replaced) {
      expect(existsSync(path.join(output, 'chunks', name)), name).toBe(true);
    }
    expect(await chunksOf(false)).toEqual(built);
    const left = readdirSync(path.join(output, 'chunks'));
    for (const name of replaced) expect(left).not.toContain(name);
    for (const name of built) expect(left).toContain(name);
  });

  it('escapes what esbuild leaves as written, meaning the same (regular expressions)', () => {
    const same = (literal: string, probes: string[]) => {
      const escaped = asciiOnly(literal);
      expect(escaped).not.toMatch(/[\u0080-\uffff]/);
      const original = regExpOf(literal);
      const rewritten = regExpOf(escaped);
      for (const probe of probes) expect(rewritten.test(probe), probe).toBe(original.test(probe));
    };
    same('/([.!?…]+)(\\s)|([。！？]+)/u', ['ok… ', '了解。', 'no']);
    same('/^[一-龯ぁ-ん]+$/', ['日本', 'にほん', 'abc']);
    same('/[😀-😂]/u', ['😁', '😃', 'x']);
    same('/😀|\\…|\\\\é/', ['😀', '…', '\\é', 'é', '\\']);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = asciiOnly(JSON.stringify(text).slice(1, -1));
        expect(escaped).not.toMatch(/[\u0080-\uffff]/);
        expect(JSON.parse(`"${escaped}"`)).toBe(text);
      }),
    );
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
