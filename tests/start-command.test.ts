/**
 * `npm start` as a person runs it: in a terminal (pretty logs on a pseudo-terminal, made by
 * util-linux `script`), stopped with Ctrl-C; and as a supervisor runs it, stopped with a SIGTERM
 * to npm's own process. Both go through npm and its shell to the real entrypoint, against the
 * loopback Discord.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from './fake-discord/fake-discord.ts';
import {
  makeTemporaryFolder,
  removeTemporaryFolder,
  signalProcessGroup,
  trackProcessGroup,
  untrackProcessGroup,
} from './support/test-resources.ts';

const PROJECT = path.resolve(import.meta.dirname, '..');
/** Ceilings for a start (npm, then loading the SDKs and the embedded database) and a stop. */
const START_CEILING_MS = 120_000;
const STOP_CEILING_MS = 30_000;
const TEST_TIMEOUT_MS = START_CEILING_MS + STOP_CEILING_MS + 20_000;
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
// Colours and cursor codes a terminal shows; stripped to read the text.
// eslint-disable-next-line no-control-regex
const TERMINAL_CODES = /\u001b\[[0-9;?]*[A-Za-z]/g;

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let discord: FakeDiscord | undefined;
const started: Started[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const run of started.splice(0)) {
    // The pseudo-terminal's processes live in their own session: end every descendant by pid.
    for (const pid of descendants(run.child.pid)) signal(pid, 'SIGKILL');
    if (run.child.pid !== undefined) {
      signalProcessGroup(run.child.pid, 'SIGKILL');
      untrackProcessGroup(run.child.pid);
    }
  }
  for (const folder of folders.splice(0)) removeTemporaryFolder(folder);
  await discord?.close();
  discord = undefined;
});

/** The bot's environment: the loopback Discord, a fresh DATA_DIR, nothing from this shell. */
function environment(fake: FakeDiscord, extra: Record<string, string> = {}) {
  const dataDir = makeTemporaryFolder('start-command-');
  folders.push(dataDir);
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    TERM: 'xterm-256color',
    DISCORD_TOKEN: fake.token,
    DISCORD_API_URL: fake.apiUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // Empty means unset: a developer's own .env in the project must not point this run elsewhere.
    DATABASE_URL: '',
    LOG_FORMAT: '',
    ...extra,
  };
}

function launch(command: string, args: string[], env: Record<string, string>): Started {
  const child = spawn(command, args, {
    cwd: PROJECT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) trackProcessGroup(child.pid);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signalName) => resolve({ code, signal: signalName })),
  );
  const run = { child, output: () => output.replace(TERMINAL_CODES, ''), exited };
  started.push(run);
  return run;
}

/** Resolves when the output matches, rejects at the ceiling or when the process exits first. */
async function waitForOutput(run: Started, pattern: RegExp, ceilingMs: number): Promise<void> {
  const deadline = Date.now() + ceilingMs;
  let exited = false;
  void run.exited.then(() => (exited = true));
  while (!pattern.test(run.output())) {
    if (exited) throw new Error(`exited before ${String(pattern)}:\n${run.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in time:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function within<T>(promise: Promise<T>, ceilingMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ceilingMs} ms`)), ceilingMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Every process below `pid`, read from /proc (children of children included). */
function descendants(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), parent);
    } catch {
      // The process ended while the table was read.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift() as number;
    for (const [child, parent] of parents) {
      if (parent === current) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** The bot's node process below npm (npm's shell execs it, so it is npm's child). */
function botProcess(npmPid: number | undefined): number | undefined {
  return descendants(npmPid).find((pid) => {
    try {
      const [program, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return path.basename(program ?? '') === 'node' && args.includes('dist/main.js');
    } catch {
      return false;
    }
  });
}

describe('npm start', { timeout: TEST_TIMEOUT_MS }, () => {
  it.skipIf(!hasScript)(
    'runs in a terminal with pretty logs and stops on Ctrl-C, leaving no process behind',
    async () => {
      discord = await startFakeDiscord();
      const run = launch(
        'script',
        ['--quiet', '--return', '--command', 'npm start', '/dev/null'],
        environment(discord),
      );
      await waitForOutput(run, /connected to Discord/, START_CEILING_MS);
      const text = run.output();
      // Pretty, not JSON: "INFO (…): connected to Discord".
      expect(text).toMatch(/INFO.*: connected to Discord/);
      expect(text).not.toMatch(/^\{"level"/m);
      expect(text).not.toMatch(/stream\.on is not a function|TypeError/);
      const bot = botProcess(run.child.pid);
      expect(bot).toBeDefined();
      run.child.stdin?.write('\u0003'); // Ctrl-C on the terminal: SIGINT to npm and the bot.
      await within(run.exited, STOP_CEILING_MS, 'the stop after Ctrl-C');
      // npm may exit before the bot has finished (and `script` then closes the terminal, so the
      // bot's last lines are not always captured): what counts is that the bot is gone.
      await vi.waitFor(() => expect(alive(bot as number)).toBe(false), {
        timeout: STOP_CEILING_MS,
        interval: 100,
      });
    },
  );

  it('pretty logs through a pipe (LOG_FORMAT=pretty) do not crash the start', async () => {
    discord = await startFakeDiscord();
    const run = launch('npm', ['start'], environment(discord, { LOG_FORMAT: 'pretty' }));
    await waitForOutput(run, /connected to Discord/, START_CEILING_MS);
    expect(run.output()).toMatch(/INFO.*: connected to Discord/);
    expect(run.output()).not.toMatch(/stream\.on is not a function|TypeError/);
    signal(run.child.pid as number, 'SIGTERM');
    await within(run.exited, STOP_CEILING_MS, 'the stop after SIGTERM');
  });

  it("passes a SIGTERM to npm's process on to the bot, which shuts down cleanly and exits", async () => {
    discord = await startFakeDiscord();
    const run = launch('npm', ['start'], environment(discord, { LOG_FORMAT: 'json' }));
    await waitForOutput(run, /connected to Discord/, START_CEILING_MS);
    const bot = botProcess(run.child.pid);
    expect(bot).toBeDefined();
    signal(run.child.pid as number, 'SIGTERM'); // npm's own process, as a supervisor does
    await within(run.exited, STOP_CEILING_MS, 'the stop after SIGTERM');
    // npm waited for the bot: by the time npm is gone, so is the bot, after its own shutdown.
    expect(alive(bot as number)).toBe(false);
    expect(run.output()).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/);
    expect(run.output()).not.toMatch(/"level":(50|60)/);
  });

  it('gives memory back once connected and quiet (the start command exposes the collector)', async () => {
    discord = await startFakeDiscord();
    const run = launch(
      'npm',
      ['start'],
      environment(discord, { LOG_FORMAT: 'json', LOG_LEVEL: 'debug' }),
    );
    await waitForOutput(run, /connected to Discord/, START_CEILING_MS);
    await waitForOutput(
      run,
      /"msg":"(memory given back at rest|started without --expose-gc[^"]*)"/,
      START_CEILING_MS,
    );
    const line = run
      .output()
      .split('\n')
      .find((text) => text.includes('"msg":"memory given back at rest"'));
    const given = JSON.parse(line ?? '{}') as { rssBeforeMb?: number; rssAfterMb?: number };
    expect(given.rssAfterMb).toBeLessThan(given.rssBeforeMb ?? 0);
    expect(run.output()).not.toMatch(/started without --expose-gc/);
    signal(run.child.pid as number, 'SIGTERM');
    await within(run.exited, STOP_CEILING_MS, 'the stop after SIGTERM');
  });
});
