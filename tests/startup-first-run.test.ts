/**
 * First run: what a new operator meets when something is wrong. The real
 * entrypoint is started with a broken setup and must say, in one line, what failed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ENTRYPOINT = path.resolve('src/main.ts');
const RECORD_IMPORTS = path.resolve('tests/support/record-imports.ts');
const RUNTIME_CHECK = path.resolve('scripts/check-runtime.mjs');
/** A ceiling for a start on a busy machine, waited for as the process's exit. */
const EXIT_CEILING_MS = 90_000;
/** Packages that take seconds to load; a configuration error must be reported before them. */
const HEAVY_PACKAGES = [
  'discord.js',
  '@discordjs',
  'openai',
  '@google/genai',
  '@anthropic-ai/sdk',
  '@electric-sql/pglite',
  'drizzle-orm',
  '/pg/',
  '@modelcontextprotocol/sdk',
];

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function folder(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'first-run-'));
  folders.push(directory);
  return directory;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the entrypoint to its exit (killed at the ceiling, so a hang fails the test). */
function run(environment: Record<string, string>, nodeArguments: string[] = []): Promise<Run> {
  const directory = folder();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArguments, ENTRYPOINT], {
      cwd: directory,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: directory, ...environment },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_CEILING_MS);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('first run', { timeout: EXIT_CEILING_MS + 10_000 }, () => {
  it('reports a configuration error before loading any SDK', async () => {
    const record = path.join(folder(), 'imports.txt');
    const started = performance.now();
    const result = await run({ DISCORD_TOKEN: 'x', LOG_LEVEL: 'loud', RECORD_IMPORTS_TO: record }, [
      '--import',
      RECORD_IMPORTS,
    ]);
    const elapsedMs = Math.round(performance.now() - started);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/LOG_LEVEL/);
    const loaded = readFileSync(record, 'utf8');
    expect(loaded).toMatch(/src\/app\/config\/config\.ts/);
    for (const name of HEAVY_PACKAGES) expect(loaded).not.toContain(`node_modules/${name}`);
    console.log(`configuration error reported ${elapsedMs} ms after spawn`);
  });

  it.each([
    ['a closed port', 'postgres://postgres@127.0.0.1:1/tomodachi', 'ECONNREFUSED'],
    ['an unknown host', 'postgres://postgres@no-such-host.invalid/tomodachi', 'ENOTFOUND'],
  ])('names the database, in one line without a stack, for %s', async (_what, url, code) => {
    const result = await run({
      DISCORD_TOKEN: 'x',
      DATABASE_URL: url,
      BOT_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'info',
    });
    expect(result.status).toBe(1);
    const fatal = jsonLines(result.stdout).filter((line) => line['level'] === 60);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.['msg']).toMatch(
      new RegExp(`could not reach the database \\(PostgreSQL at .*\\): ${code}`),
    );
    expect(fatal[0]?.['msg']).not.toMatch(/Discord/);
    expect(fatal[0]?.['err']).toBeUndefined();
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at /);
    const phases = jsonLines(result.stdout).map((line) => line['phase']);
    expect(phases).toContain('config');
  });

  it('explains an old Node instead of failing with ERR_UNKNOWN_FILE_EXTENSION', (context) => {
    const oldNode = '/usr/bin/node';
    const version = spawnSync(oldNode, ['--version'], { encoding: 'utf8' });
    const major = Number(/^v(\d+)/.exec(version.stdout ?? '')?.[1] ?? NaN);
    if (version.status !== 0 || !(major < 22)) {
      context.skip();
      return;
    }
    const result = spawnSync(oldNode, ['--import', RUNTIME_CHECK, ENTRYPOINT], {
      cwd: folder(),
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/Tomodachi needs Node 22\.18\.0 or newer/);
    expect(result.stderr).toMatch(/node_modules\/\.bin\/node/);
    expect(result.stderr).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION/);
  });
});
