/**
 * Runs the bot's REAL entrypoint (`node dist/main.js`, what `npm start` runs) as a child
 * process against the loopback Discord — and, through `env`, against the LLM stand-in — for
 * end-to-end scenarios: start, wait until connected, stop gracefully, kill hard, restart on
 * the same data, read the logs.
 *
 *   const bot = await startBot({ discord, env: { OPENAI_BASE_URL: llm.openaiBaseUrl, OPENAI_API_KEY: 'test' } });
 *   await bot.waitUntilConnected();
 *   … drive the scenario through `discord` …
 *   expect(await bot.stop()).toEqual({ code: 0, signal: null });
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { FakeDiscord } from '../fake-discord/fake-discord.ts';
import { ProcessOutput, type LogLine } from './process-output.ts';
import { startEntry, startNodeFlags } from './start-flags.ts';
import {
  makeTemporaryFolder,
  removeTemporaryFolder,
  signalProcessGroup,
  trackProcessGroup,
  untrackProcessGroup,
} from './test-resources.ts';

export type { LogLine };

/**
 * A ceiling, not an expectation: waits resolve on the event itself. A busy 2-core machine
 * (other suites, other engineers) was seen taking over two minutes to start one (load average
 * 34), so start-up and log waits allow four minutes before they fail with the bot's output.
 */
export const DEFAULT_WAIT_CEILING_MS = 240_000;
/** How long `stop()` lets SIGTERM work (the bot's own shutdown grace is 15 s by default). */
const DEFAULT_STOP_TIMEOUT_MS = 60_000;
/** The bot's own log line once discord.js is ready. */
const CONNECTED_LOG = /connected to Discord/;

export interface ScenarioOptions {
  /** The fake Discord the bot connects to (DISCORD_TOKEN and DISCORD_API_URL come from it). */
  discord: FakeDiscord;
  /** Extra environment: provider settings (OPENAI_BASE_URL, OPENAI_API_KEY, DEFAULT_PROVIDER, …). */
  env?: Record<string, string>;
  /** Use PostgreSQL instead of the embedded database (a BOT_ENCRYPTION_KEY is made up if absent). */
  databaseUrl?: string;
  /** Default: a fresh temporary directory, removed by `dispose()`. */
  dataDir?: string;
  /** Default `debug`, so scenarios can wait on detailed lines. */
  logLevel?: string;
  /** Node's arguments instead of the entrypoint alone (e.g. `npm start`'s: see chaos-bot.ts). */
  nodeArguments?: readonly string[];
}

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WaitOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Starts the bot and returns its handle (not yet waited for: call `waitUntilConnected`). */
export function startBot(options: ScenarioOptions): BotProcess {
  const bot = new BotProcess(options);
  bot.start();
  return bot;
}

/** The bot process of one scenario, across restarts. */
export class BotProcess {
  readonly dataDir: string;
  readonly #options: ScenarioOptions;
  readonly #ownsDataDir: boolean;
  readonly #environment: Record<string, string>;
  readonly #output = new ProcessOutput();
  #child: ChildProcess | undefined;
  #exit: Promise<ExitResult> | undefined;
  /** Gateway milestones seen since the current process started. */
  #gateway = { readyConnections: new Set<number>(), heartbeats: new Set<number>() };
  #stopWatchingGateway: (() => void) | undefined;
  /** Index in the log of the current run's first line. */
  #runStart = 0;

  constructor(options: ScenarioOptions) {
    this.#options = options;
    this.#ownsDataDir = options.dataDir === undefined;
    this.dataDir = options.dataDir ?? makeTemporaryFolder('bot-scenario-');
    this.#environment = this.#buildEnvironment();
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return (
      this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null
    );
  }

  /** Every line so far, across restarts, in order. */
  logs(): readonly LogLine[] {
    return this.#output.lines();
  }

  /** Calls `listener` with every line from now on; returns the unsubscribe. */
  subscribe(listener: (line: LogLine) => void): () => void {
    return this.#output.subscribe(listener);
  }

  /** All output as text (for failure messages). */
  output(): string {
    return this.#output.text();
  }

  /** @internal Spawns the process; `restart()` is the public way to start again. */
  start(): void {
    if (this.running) throw new Error('the bot is already running');
    this.#watchGateway();
    this.#runStart = this.#output.lines().length;
    // Its own process group (pgid = pid): a kill reaches the children it starts (MCP servers)
    // too, and the group is registered so a dying test worker takes it along.
    const nodeArguments = this.#options.nodeArguments ?? [...startNodeFlags(), startEntry()];
    const child = spawn(process.execPath, [...nodeArguments], {
      cwd: this.dataDir,
      env: this.#environment,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const groupId = child.pid;
    if (groupId !== undefined) trackProcessGroup(groupId);
    this.#child = child;
    this.#output.capture(child);
    this.#exit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#stopWatchingGateway?.();
        if (groupId !== undefined) {
          // Anything the bot left behind in its group (a child it did not end) goes with it.
          signalProcessGroup(groupId, 'SIGKILL');
          untrackProcessGroup(groupId);
        }
        resolve({ code, signal });
      });
    });
  }

  /** Resolves when a line matching `match` (regex on the text, or a predicate) appears. */
  waitForLog(
    match: RegExp | ((line: LogLine) => boolean),
    options: WaitOptions = {},
  ): Promise<LogLine> {
    const accepts = typeof match === 'function' ? match : (line: LogLine) => match.test(line.text);
    const existing = this.#output.lines().find(accepts);
    if (existing !== undefined) return Promise.resolve(existing);
    return this.#until(`a log line matching ${String(match)}`, options, (resolve) => {
      const listener = (line: LogLine): void => {
        if (accepts(line)) resolve(line);
      };
      return this.#output.subscribe(listener);
    });
  }

  /**
   * Resolves once this process is connected: the fake sent READY (and every GUILD_CREATE) on a
   * connection opened by it, and the bot then heartbeats (requested at once with op 1) or logs
   * that it is connected. Rejects if the process exits first.
   */
  async waitUntilConnected(options: WaitOptions = {}): Promise<void> {
    const { discord } = this.#options;
    const gateway = this.#gateway;
    const connected = (): boolean =>
      [...gateway.readyConnections].some((id) => gateway.heartbeats.has(id)) ||
      this.#output
        .lines()
        .slice(this.#runStart)
        .some((line) => CONNECTED_LOG.test(line.text));
    if (connected()) return;
    await this.#until('the bot to connect to the gateway', options, (resolve) => {
      const check = (): void => {
        if (connected()) resolve(undefined);
      };
      const unsubscribe = discord.subscribe((event) => {
        if (event.type !== 'gateway') return;
        // READY seen: ask for a heartbeat now instead of waiting up to a heartbeat interval.
        if (event.event.kind === 'ready-sent') discord.gateway.requestHeartbeat();
        check();
      });
      const unsubscribeLines = this.#output.subscribe(check);
      if (gateway.readyConnections.size > 0) discord.gateway.requestHeartbeat();
      return () => {
        unsubscribe();
        unsubscribeLines();
      };
    });
  }

  /**
   * Resolves with the exit of the current process, one the bot makes on its own (a failed
   * start, a fatal gateway close); rejects after the deadline (a ceiling, not a sleep).
   */
  async waitForExit(options: { timeoutMs?: number } = {}): Promise<ExitResult> {
    const exit = this.#exit;
    if (exit === undefined) throw new Error('the bot was never started');
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_CEILING_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`the bot did not exit within ${timeoutMs} ms\n${this.output()}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([exit, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGTERM, then waits for the exit (SIGKILL after the timeout, and rejects). */
  async stop(options: { timeoutMs?: number } = {}): Promise<ExitResult> {
    const child = this.#child;
    const exit = this.#exit;
    if (child === undefined || exit === undefined) throw new Error('the bot was never started');
    if (!this.running) return exit;
    child.kill('SIGTERM');
    const timeoutMs = options.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        if (child.pid !== undefined) signalProcessGroup(child.pid, 'SIGKILL');
        reject(
          new Error(`the bot did not exit within ${timeoutMs} ms of SIGTERM\n${this.output()}`),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([exit, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL to the bot's whole process group: a crash, with no chance to clean up. */
  async kill(): Promise<ExitResult> {
    const child = this.#child;
    const exit = this.#exit;
    if (child === undefined || exit === undefined) throw new Error('the bot was never started');
    if (this.running && child.pid !== undefined) signalProcessGroup(child.pid, 'SIGKILL');
    return exit;
  }

  /** Starts the bot again on the same DATA_DIR (or database) after `stop()` or `kill()`. */
  restart(): void {
    if (this.running) throw new Error('stop or kill the bot before restarting it');
    this.start();
  }

  /**
   * Kills the bot (its whole group) if still running and removes the temporary data directory.
   * Safe to call twice, and after a failed start.
   */
  async dispose(): Promise<void> {
    try {
      if (this.running) await this.kill();
    } finally {
      this.#stopWatchingGateway?.();
      if (this.#ownsDataDir) removeTemporaryFolder(this.dataDir);
    }
  }

  /**
   * Records READY and heartbeats of gateway connections opened while this process runs. (Another
   * client connected to the same fake at the same time would be indistinguishable.)
   */
  #watchGateway(): void {
    this.#stopWatchingGateway?.();
    const gateway = { readyConnections: new Set<number>(), heartbeats: new Set<number>() };
    this.#gateway = gateway;
    this.#stopWatchingGateway = this.#options.discord.subscribe((event) => {
      if (event.type !== 'gateway') return;
      if (event.event.kind === 'ready-sent') gateway.readyConnections.add(event.event.connectionId);
      if (event.event.kind === 'heartbeat') gateway.heartbeats.add(event.event.connectionId);
    });
  }

  #buildEnvironment(): Record<string, string> {
    const { discord, databaseUrl } = this.#options;
    // A clean environment: nothing from the developer's shell (keys, TEST_DATABASE_URL) leaks in.
    const environment: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      DATA_DIR: this.dataDir,
      LOG_LEVEL: this.#options.logLevel ?? 'debug',
    };
    if (databaseUrl !== undefined) {
      environment.DATABASE_URL = databaseUrl;
      environment.BOT_ENCRYPTION_KEY = randomBytes(32).toString('base64');
    }
    return { ...environment, ...this.#options.env };
  }

  /**
   * A promise settled by `subscribe`'s resolve, rejected when the process exits, the signal
   * aborts or the deadline passes (a deadline, not a sleep).
   */
  #until<T>(
    description: string,
    options: WaitOptions,
    subscribe: (resolve: (value: T) => void) => () => void,
  ): Promise<T> {
    const exit = this.#exit;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_CEILING_MS;
      const finish = (): void => {
        settled = true;
        unsubscribe();
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (message: string): void => {
        if (settled) return;
        finish();
        reject(
          new Error(
            `${message} while waiting for ${description}\n--- bot output ---\n${this.output()}`,
          ),
        );
      };
      const onAbort = (): void => fail('aborted');
      const unsubscribe = subscribe((value) => {
        if (settled) return;
        finish();
        resolve(value);
      });
      const timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      void exit?.then((result) => fail(`the bot exited (${result.code ?? result.signal ?? '?'})`));
    });
  }
}
