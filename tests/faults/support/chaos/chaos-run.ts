/**
 * One chaos run: the REAL bot started as `npm start` starts it, on a PostgreSQL cluster of the
 * run's own (initdb + pg_ctl, so it can be cut and restarted) or on the embedded PGlite,
 * against the loopback Discord and the chaos provider; the plan's mentions posted and its
 * faults applied on their own timelines; then every fault lifted, the run drained, and judged.
 * Whatever happens, every process, the cluster and every temp folder is gone at the end.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { updateScopeSettings } from '../../../../src/db/scope-settings-repository.ts';
import { startHarness, type BotHarness } from '../../../bot/support/bot-harness.ts';
import type { FakeDiscord } from '../../../fake-discord/fake-discord.ts';
import { startPgCluster, type PgCluster } from '../../../support/pg-cluster.ts';
import { ChaosProvider } from './chaos-provider.ts';
import { buildIfStale } from '../../../support/start-flags.ts';
import {
  judgeChaos,
  type ChannelMessage,
  type Judgement,
  type MentionRecord,
  type ModelCall,
} from './oracle.ts';
import type { ChaosPlan, FaultKind, PlannedFault } from './schedule.ts';

const REPOSITORY = path.resolve(import.meta.dirname, '../../../..');
/** Ceilings, not expectations: a loaded 2-core machine was seen taking minutes to start a bot. */
const START_CEILING_MS = 180_000;
const STOP_CEILING_MS = 60_000;
/** A supervisor's patience with a start that fails at once (a lock not yet released). */
const START_ATTEMPTS = 5;
const START_RETRY_PAUSE_MS = 1_000;
/**
 * After the schedule, how long nothing may happen before the run counts as settled. On
 * PostgreSQL longer than the bot's maintenance pass (60 s, src/app/lifecycle/background-work.ts),
 * which recovers what a start could not judge yet (a dead process's claims within a minute of a
 * PostgreSQL restart); PGlite has no server restart and one process: its start recovers at once.
 */
const QUIET_MS = { postgres: 75_000, pglite: 20_000 } as const;
/** Once every mention has an outcome, how long nothing may happen (a late second answer). */
const SETTLED_QUIET_MS = 5_000;
const DRAIN_CEILING_MS = 240_000;
/** The bot's own grace on SIGTERM, shorter than its default so restarts fit a CI run. */
const SHUTDOWN_GRACE_MS = 5_000;
const RESTARTS: ReadonlySet<FaultKind> = new Set([
  'sigterm-restart',
  'sigkill-restart',
  'postgres-restart',
]);

export interface AppliedFault {
  atMs: number;
  fault: PlannedFault;
  /** When it was applied, from the run's start (later than planned behind a slow restart). */
  appliedAtMs: number;
  tookMs: number;
  note?: string;
}

export interface ChaosResult {
  plan: ChaosPlan;
  database: 'postgres' | 'pglite';
  mentions: MentionRecord[];
  applied: AppliedFault[];
  judgement: Judgement;
  /** Things the harness saw beyond the oracle: refused starts, exits nobody asked for. */
  incidents: string[];
  /** The bot's log lines about one message, for the failure printout. */
  logsAbout: (messageId: string) => string[];
  wallMs: number;
  /** When the schedule began (wall clock), to read the bot's log times against. */
  origin: number;
  /** The bot's whole output, across restarts. */
  botOutput: () => string;
  /** Every model call and every channel message, for a diagnosis beyond the printout. */
  evidence: () => { calls: ModelCall[]; messages: ChannelMessage[] };
}

/**
 * `npm start`'s Node arguments (package.json), paths made absolute: the bot runs in DATA_DIR.
 * dist/ is built first when a source is newer, as npm start's prestart does.
 */
export function npmStartArguments(): string[] {
  buildIfStale();
  const manifest = JSON.parse(readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  // `exec node …`: npm's shell hands its process to node, so signals to npm reach the bot.
  const words = (manifest.scripts?.['start'] ?? '')
    .trim()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  if (words[0] !== 'node') throw new Error(`npm start is not "node …": ${words.join(' ')}`);
  return words.slice(1).map((word) => {
    const relative = word.replace(/^\.\//, '');
    return /\.(m?[jt]s)$/.test(relative) && !path.isAbsolute(relative)
      ? path.join(REPOSITORY, relative)
      : word;
  });
}

function buildWorld(discord: FakeDiscord, plan: ChaosPlan) {
  const messagesGuild = discord.createGuild({ name: 'Chaos' });
  const editGuild = discord.createGuild({ name: 'Chaos (edit mode)' });
  const members = ['alice', 'bob', 'carol'].slice(0, plan.members).map((username) => {
    const user = discord.createUser({ username });
    for (const guild of [messagesGuild, editGuild]) {
      discord.addMember({ guildId: guild.id, userId: user.id });
    }
    return user;
  });
  // Every fifth channel replies by editing one message, the others by sending messages.
  const channels = Array.from({ length: plan.channels }, (_unused, index) => {
    const guild = index % 5 === 4 ? editGuild : messagesGuild;
    const name = `chaos-${index}${guild === editGuild ? '-edit' : ''}`;
    return { id: discord.createChannel({ guildId: guild.id, name }).id, name };
  });
  return { messagesGuild, editGuild, members, channels };
}

type ChaosWorld = ReturnType<typeof buildWorld>;

export async function runChaos(options: {
  plan: ChaosPlan;
  database: 'postgres' | 'pglite';
  log?: (line: string) => void;
}): Promise<ChaosResult> {
  const startedAt = Date.now();
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    const cluster = options.database === 'postgres' ? await startPgCluster() : undefined;
    if (cluster !== undefined) cleanup.push(() => cluster.dispose());
    const harness = await startHarness<ChaosWorld>({
      databaseKind: options.database,
      ...(cluster === undefined ? {} : { serverUrl: cluster.url }),
      setup: (discord) => buildWorld(discord, options.plan),
      seed: async (db, world) => {
        // No member rate limit: the run counts answers, not refusals of three busy members.
        await updateScopeSettings(
          db,
          { id: world.messagesGuild.id, kind: 'guild' },
          {
            memberTurnsPerMinute: 0,
          },
        );
        await updateScopeSettings(
          db,
          { id: world.editGuild.id, kind: 'guild' },
          {
            memberTurnsPerMinute: 0,
            deliveryMode: 'edit',
          },
        );
      },
      env: { SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS) },
      nodeArguments: npmStartArguments(),
      connectTimeoutMs: START_CEILING_MS,
    });
    cleanup.push(() => harness.dispose());
    const provider = new ChaosProvider(harness.llm);
    cleanup.push(() => Promise.resolve(provider.dispose()));
    const run = new ChaosRunner({ ...options, harness, cluster, provider, startedAt });
    return await run.execute();
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  }
}

class ChaosRunner {
  readonly #plan: ChaosPlan;
  readonly #database: 'postgres' | 'pglite';
  readonly #harness: BotHarness<ChaosWorld>;
  readonly #cluster: PgCluster | undefined;
  readonly #provider: ChaosProvider;
  readonly #startedAt: number;
  readonly #log: (line: string) => void;
  readonly #mentions: MentionRecord[] = [];
  readonly #applied: AppliedFault[] = [];
  readonly #incidents: string[] = [];
  /** True while the runner itself has the bot down (a SIGTERM or SIGKILL and its restart). */
  #restarting = false;

  constructor(options: {
    plan: ChaosPlan;
    database: 'postgres' | 'pglite';
    harness: BotHarness<ChaosWorld>;
    cluster: PgCluster | undefined;
    provider: ChaosProvider;
    startedAt: number;
    log?: (line: string) => void;
  }) {
    this.#plan = options.plan;
    this.#database = options.database;
    this.#harness = options.harness;
    this.#cluster = options.cluster;
    this.#provider = options.provider;
    this.#startedAt = options.startedAt;
    this.#log = options.log ?? (() => undefined);
  }

  async execute(): Promise<ChaosResult> {
    const origin = Date.now();
    const supervising = this.#supervise();
    try {
      await Promise.all([this.#postMentions(origin), this.#applyFaults(origin)]);
      this.#log(`schedule done after ${((Date.now() - origin) / 1000).toFixed(1)} s; draining`);
      this.#heal();
      await this.#drain();
    } finally {
      supervising.abort();
    }
    const messages = this.#channelMessages();
    const judgement = judgeChaos({
      mentions: this.#mentions,
      calls: this.#provider.calls,
      messages,
    });
    return {
      plan: this.#plan,
      database: this.#database,
      mentions: this.#mentions,
      applied: this.#applied,
      judgement,
      incidents: this.#incidents,
      logsAbout: (messageId) => this.#logsAbout(messageId),
      wallMs: Date.now() - this.#startedAt,
      origin,
      botOutput: () => this.#harness.bot.output(),
      evidence: () => ({ calls: this.#provider.calls, messages }),
    };
  }

  async #postMentions(origin: number): Promise<void> {
    const { discord, world } = this.#harness;
    for (const planned of this.#plan.mentions) {
      await sleep(Math.max(0, origin + planned.atMs - Date.now()));
      const channel = world.channels[planned.channel];
      const author = world.members[planned.member];
      if (channel === undefined || author === undefined) throw new Error('plan outside the world');
      const message = discord.postMessage({
        authorId: author.id,
        channelId: channel.id,
        content: `<@${discord.botUserId}> question ${planned.token}, tell me something`,
      });
      this.#mentions.push({
        index: planned.index,
        token: planned.token,
        messageId: message.id,
        channelId: channel.id,
        channelName: channel.name,
        authorName: author.username,
        postedAt: Date.now(),
      });
    }
  }

  async #applyFaults(origin: number): Promise<void> {
    // The time a restart takes does not count: the next fault keeps its distance from the bot
    // being back, instead of striking the moment it is (a slow machine would only kill it).
    let restartsMs = 0;
    for (const scheduled of this.#plan.faults) {
      await sleep(Math.max(0, origin + restartsMs + scheduled.atMs - Date.now()));
      const appliedAt = Date.now();
      const note = await this.#apply(scheduled.fault);
      const entry: AppliedFault = {
        ...scheduled,
        appliedAtMs: appliedAt - origin,
        tookMs: Date.now() - appliedAt,
        ...(note === undefined ? {} : { note }),
      };
      this.#applied.push(entry);
      if (RESTARTS.has(scheduled.fault.kind)) restartsMs += entry.tookMs;
      this.#log(
        `fault ${scheduled.fault.kind} at ${(entry.appliedAtMs / 1000).toFixed(1)} s (planned ${(scheduled.atMs / 1000).toFixed(1)} s), took ${entry.tookMs} ms${note === undefined ? '' : `: ${note}`}`,
      );
    }
  }

  /** Applies one fault; returns a note when something beyond the fault itself happened. */
  async #apply(fault: PlannedFault): Promise<string | undefined> {
    const { discord } = this.#harness;
    const messagesRoute = /^\/channels\/\d+\/messages/;
    switch (fault.kind) {
      case 'db-connections-cut':
        return `${await this.#cutConnections()} connections cut`;
      case 'postgres-restart':
        await this.#requireCluster().restart();
        return undefined;
      case 'sigterm-restart':
      case 'sigkill-restart':
        return this.#restartBot(fault.kind);
      case 'fresh-session':
        discord.gateway.invalidateSessions({ resumable: false });
        return undefined;
      case 'resumed-session':
        discord.gateway.dropConnections();
        return undefined;
      case 'discord-5xx':
        discord.faults.failRoute({
          route: messagesRoute,
          status: fault.status,
          times: fault.requests,
        });
        return undefined;
      case 'discord-429':
        discord.faults.rateLimitStorm({
          route: messagesRoute,
          retryAfterMs: fault.retryAfterMs,
          scope: fault.scope,
          times: fault.requests,
        });
        return undefined;
      case 'provider-errors':
      case 'provider-drops':
      case 'provider-stalls':
        this.#provider.arm(fault);
        return undefined;
    }
  }

  #requireCluster(): PgCluster {
    if (this.#cluster === undefined) throw new Error('a database fault needs the PostgreSQL run');
    return this.#cluster;
  }

  async #cutConnections(): Promise<number> {
    const cluster = this.#requireCluster();
    const databaseUrl = this.#harness.database.environment['DATABASE_URL'] ?? '';
    const name = new URL(databaseUrl).pathname.slice(1);
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const result = await client.query<{ cut: number }>(
        `select count(*)::int as cut from (
           select pg_terminate_backend(pid) from pg_stat_activity
            where datname = $1 and pid <> pg_backend_pid()) as terminated`,
        [name],
      );
      return result.rows[0]?.cut ?? 0;
    } finally {
      await client.end();
    }
  }

  async #restartBot(kind: 'sigterm-restart' | 'sigkill-restart'): Promise<string | undefined> {
    const { bot } = this.#harness;
    this.#restarting = true;
    try {
      let note: string | undefined;
      if (kind === 'sigkill-restart') await bot.kill();
      else {
        const exit = await bot.stop({ timeoutMs: STOP_CEILING_MS }).catch((error: unknown) => {
          note = `no exit within ${STOP_CEILING_MS} ms of SIGTERM: killed`;
          this.#incidents.push(`${note} (${String(error).slice(0, 80)})`);
          return undefined;
        });
        if (exit !== undefined && exit.code !== 0) note = `exited ${exit.code ?? exit.signal}`;
      }
      const refused = await this.#startAgain();
      return refused === 0 ? note : `${note ?? ''} ${refused} start(s) refused`.trim();
    } finally {
      this.#restarting = false;
    }
  }

  /** Starts the bot as a supervisor does: at once, again after a pause if it exits. */
  async #startAgain(): Promise<number> {
    const { bot } = this.#harness;
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt += 1) {
      const firstLine = bot.logs().length;
      bot.restart();
      try {
        await bot.waitUntilConnected({ timeoutMs: START_CEILING_MS });
        return attempt - 1;
      } catch (error) {
        if (bot.running) throw error;
        const said = bot
          .logs()
          .slice(firstLine)
          .map((line) => (typeof line.json?.['msg'] === 'string' ? line.json['msg'] : line.text))
          .filter((text) => text.trim() !== '')
          .slice(-2)
          .join(' / ');
        this.#incidents.push(`start refused (attempt ${attempt}): ${said.slice(0, 200)}`);
        await sleep(START_RETRY_PAUSE_MS);
      }
    }
    throw new Error(`the bot did not start in ${START_ATTEMPTS} attempts`);
  }

  /** A supervisor's restart of a bot that exits when nobody asked it to. */
  #supervise(): AbortController {
    const controller = new AbortController();
    const watch = async (): Promise<void> => {
      while (!controller.signal.aborted) {
        await sleep(500, undefined, { signal: controller.signal }).catch(() => undefined);
        if (controller.signal.aborted || this.#restarting || this.#harness.bot.running) continue;
        this.#incidents.push('the bot exited on its own: restarted');
        this.#restarting = true;
        await this.#startAgain()
          .catch((error: unknown) => this.#incidents.push(`restart failed: ${String(error)}`))
          .finally(() => (this.#restarting = false));
      }
    };
    void watch();
    return controller;
  }

  #heal(): void {
    this.#harness.discord.faults.clear();
    this.#provider.heal();
  }

  /** Waits until every mention has an outcome, or nothing has happened for QUIET_MS. */
  async #drain(): Promise<void> {
    const deadline = Date.now() + DRAIN_CEILING_MS;
    let lastActivity = Date.now();
    let seen = this.#activity();
    while (Date.now() < deadline) {
      await sleep(500);
      const now = this.#activity();
      if (now !== seen || this.#restarting) {
        seen = now;
        lastActivity = Date.now();
      }
      const quietFor = Date.now() - lastActivity;
      if (quietFor >= QUIET_MS[this.#database]) return;
      if (quietFor >= SETTLED_QUIET_MS && this.#settled()) return;
    }
    this.#incidents.push(`drain ceiling of ${DRAIN_CEILING_MS} ms reached`);
  }

  /**
   * What members and the model could notice: model calls and the bot's messages as they read
   * now (heartbeats and debug lines go on forever and are not activity).
   */
  #activity(): string {
    const botMessages = this.#channelMessages().filter((message) => message.authorIsBot);
    const text = botMessages.reduce((length, message) => length + message.content.length, 0);
    return `${this.#provider.calls.length}/${botMessages.length}/${text}`;
  }

  #settled(): boolean {
    if (this.#restarting) return false;
    const judgement = judgeChaos({
      mentions: this.#mentions,
      calls: this.#provider.calls,
      messages: this.#channelMessages(),
    });
    return judgement.verdicts.every((verdict) => verdict.outcome !== 'lost');
  }

  #channelMessages(): ChannelMessage[] {
    const { discord, world } = this.#harness;
    return world.channels.flatMap((channel) =>
      discord.readChannel(channel.id).map((message): ChannelMessage => ({
        id: message.id,
        channelId: channel.id,
        authorIsBot: message.author.id === discord.botUserId,
        content: message.content,
        replyTo: message.message_reference?.message_id,
        shownAt: Date.parse(message.edited_timestamp ?? message.timestamp),
      })),
    );
  }

  #logsAbout(messageId: string): string[] {
    return this.#harness.bot
      .logs()
      .filter((line) => line.text.includes(messageId))
      .map((line) => {
        const json = line.json;
        if (json === undefined) return line.text.slice(0, 200);
        const time =
          typeof json['time'] === 'number'
            ? new Date(json['time']).toISOString().slice(11, 23)
            : '';
        const extra = ['err', 'reason', 'outcome', 'error']
          .filter((key) => json[key] !== undefined)
          .map((key) => `${key}=${JSON.stringify(json[key]).slice(0, 120)}`)
          .join(' ');
        return `${time} ${String(json['msg'])} ${extra}`.trim();
      });
  }
}

export type { FaultKind };
