import type { Client } from 'discord.js';
import { releaseClaims } from '../db/claim-repository.ts';
import { assembleBot, type BotParts } from './bot-assembly.ts';
import { attachBotEvents, type AttachedBotEvents } from './bot-event-wiring.ts';
import type { AcceptedMessage } from './intake/accepted-message.ts';
import { registerCommands } from './commands/command-registration.ts';
import { registeredDefinitions } from './commands/slash-command.ts';
import type { DiscordBotOptions } from './discord-bot-options.ts';
import { recoverUnanswered } from './recovery/unanswered-recovery.ts';
import { targetOfPostedMessage } from './delivery/webhook-message-target.ts';
import { channelOnShards } from './sharding/channel-ownership.ts';

export type { DiscordBotOptions } from './discord-bot-options.ts';

/**
 * How soon recovery looks again when it could not yet judge whether a process is dead (within
 * a minute of a PostgreSQL start): messages such a process owed wait seconds, not the next
 * maintenance pass.
 */
const JUDGE_AGAIN_MS = 5_000;

/**
 * The bot on Discord. Until the client is ready it holds only its options; at `clientReady`
 * (the bot's own user is known) it assembles its parts once (bot-assembly.ts) and attaches them
 * to the gateway's events — discord.js holds back message events until then. It owns the
 * bot's lifetime: graceful shutdown, idleness, and the recovery of messages left unanswered.
 */
export class DiscordBot {
  private readonly options: DiscordBotOptions;
  /** Aborted once live turns must stop (after the shutdown grace). */
  private readonly shutdownController = new AbortController();
  /** Aborted when shutdown begins: intake's outage hold ends (outage-hold.ts). */
  private readonly intakeHold = new AbortController();
  private parts: BotParts | undefined;
  private events: AttachedBotEvents | undefined;
  /** A recovery pass due soon (a dead peer could not be judged yet). */
  private judgeAgain: AbortController | undefined;

  constructor(options: DiscordBotOptions) {
    this.options = options;
  }

  /** Attaches to the client; call before login. */
  attach(): void {
    const { client, logger } = this.options;
    client.once('clientReady', (ready) => this.start(ready));
    client.on('error', (error) => logger.error({ err: error }, 'Discord client error'));
  }

  /**
   * Resolves once no channel has a live or waiting turn. A message still on its way through
   * intake (settings, claim) is not counted: call it after the turn has visibly started.
   */
  idle(): Promise<void> {
    return this.parts?.scheduler.whenIdle() ?? Promise.resolve();
  }

  /**
   * Whether nothing is under way that a pause of tens of milliseconds would hold up: no turn
   * live or waiting, no voice call (app/lifecycle/rest-collection.ts asks before collecting).
   */
  atRest(): boolean {
    const { parts } = this;
    if (parts === undefined) return false;
    return parts.scheduler.isIdle() && !(parts.voice?.inCall ?? false);
  }

  /**
   * Graceful shutdown: stop taking triggers; messages accepted but not started are given back
   * (their claims released, so another process or the next start answers them); live turns get
   * `shutdownGraceMs` to finish, then are stopped and recorded `stopped`.
   */
  async shutdown(): Promise<void> {
    const { parts } = this;
    this.intakeHold.abort(new Error('shutting down'));
    if (parts !== undefined) {
      parts.router.close();
      await this.events?.closeActivity();
      await parts.router.drained();
      await this.handBack(parts, parts.scheduler.close());
      await this.graceForLiveTurns(parts);
      // Triggers heard during the grace are handed back before the database closes.
      await parts.router.drained();
    }
    this.shutdownController.abort(new Error('shutting down'));
    await parts?.scheduler.whenIdle();
    parts?.close();
  }

  /**
   * Answers member messages owed by a process that stopped (or handed back at its shutdown):
   * run once connected, then periodically (main.ts maintenance). Never throws.
   */
  async recoverUnanswered(): Promise<void> {
    if (this.parts === undefined) return;
    const { router, webhooks } = this.parts;
    const { client, clock, shards } = this.options;
    await recoverUnanswered({
      ...this.options,
      answer: (message) => router.recover(message),
      webhookTarget: (message) =>
        targetOfPostedMessage(message, { rest: client.rest, clock, webhooks }),
      onCannotJudgeYet: () => this.recoverAgainSoon(),
      onHandedBack: () => this.recoverAgainSoon(),
      signal: this.intakeHold.signal,
      ...(shards === undefined
        ? {}
        : { owns: (channelId: string) => channelOnShards(client, channelId, shards) }),
    }).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not look for unanswered messages');
    });
  }

  /** One pass at a time is due; none once shutdown begins. */
  private recoverAgainSoon(): void {
    if (this.judgeAgain !== undefined || this.intakeHold.signal.aborted) return;
    const wait = new AbortController();
    this.judgeAgain = wait;
    const stop = () => wait.abort();
    this.intakeHold.signal.addEventListener('abort', stop, { once: true });
    void this.options.clock.sleep(JUDGE_AGAIN_MS, wait.signal).then(
      () => {
        this.judgeAgain = undefined;
        this.intakeHold.signal.removeEventListener('abort', stop);
        void this.recoverUnanswered();
      },
      () => undefined,
    );
  }

  private start(ready: Client<true>): void {
    const parts = assembleBot(
      this.options,
      { id: ready.user.id, name: ready.user.displayName, applicationId: ready.application.id },
      { shutdown: this.shutdownController.signal, intakeHold: this.intakeHold.signal },
    );
    this.parts = parts;
    this.events = attachBotEvents({
      ...this.options,
      ...parts,
      shutdown: this.shutdownController.signal,
    });
    void this.registerCommands(ready, parts);
    void this.recoverUnanswered();
  }

  /**
   * Waiting messages given back for the next start or another process, except those a reply
   * delivered whole already answered in passing: settled, or they would be answered twice.
   */
  private async handBack(parts: BotParts, waiting: readonly AcceptedMessage[]): Promise<void> {
    const ids = waiting.map((accepted) => accepted.message.id);
    const answered = ids.filter((id) => parts.inPassing.answered(id));
    if (answered.length > 0) parts.settle(answered);
    const messageIds = ids.filter((id) => !answered.includes(id));
    if (messageIds.length === 0) return;
    const { db, instanceId, logger } = this.options;
    await releaseClaims(db, messageIds, instanceId).then(
      () => logger.info({ messages: messageIds.length }, 'waiting messages handed back'),
      (error: unknown) => logger.warn({ err: error }, 'could not hand messages back'),
    );
  }

  private async graceForLiveTurns(parts: BotParts): Promise<void> {
    const grace = new AbortController();
    await Promise.race([
      parts.scheduler.whenIdle(),
      this.options.clock.sleep(this.options.shutdownGraceMs, grace.signal).catch(() => undefined),
    ]);
    grace.abort();
  }

  private async registerCommands(client: Client<true>, parts: BotParts): Promise<void> {
    try {
      await registerCommands({
        client,
        db: this.options.db,
        logger: this.options.logger,
        definitions: registeredDefinitions(parts.commands),
        guildId: this.options.commandGuildId,
      });
    } catch (error) {
      // Mentions and DMs still work without slash commands; the next start tries again.
      this.options.logger.error({ err: error }, 'could not register slash commands');
    }
  }
}
