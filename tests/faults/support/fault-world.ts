/**
 * One fault file's world: the REAL bot process (`node src/main.ts` through the env contract,
 * via the bot harness) against the loopback Discord and the LLM stand-in, a guild per delivery
 * mode, three members, a fresh channel per row — and the measurements every row reports: what
 * became of each mention (turn-accounting.ts), records left `streaming`, and whether the
 * channel answers the next mention.
 *
 * The bot runs on PostgreSQL when TEST_DATABASE_URL is set (CI), so its records are read while
 * it runs; on the embedded PGlite (one process at a time) they are read after a SIGKILL — which
 * leaves `streaming` rows exactly as they were — and the bot is started again.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { PermissionFlagsBits, type APIMessage } from 'discord-api-types/v10';
import { sql } from 'drizzle-orm';
import { updateScopeSettings } from '../../../src/db/scope-settings-repository.ts';
import { startHarness, type BotHarness } from '../../bot/support/bot-harness.ts';
import type { FakeDiscord } from '../../fake-discord/fake-discord.ts';
import { textScript } from '../../support/llm-stand-in/script.ts';
import { testServerUrl } from '../../support/bot-database.ts';
import {
  accountForTriggers,
  streamingRecords,
  type RecordedTurn,
  type TriggerRecord,
  type TriggerVerdict,
  type VisibleBotMessage,
} from './turn-accounting.ts';

/** A ceiling for anything a row waits for; a healthy run resolves on the event long before. */
export const ROW_WAIT_CEILING_MS = 120_000;
export const NEXT_MENTION_ANSWER = 'Still here, all good.';
/** How long a live `streaming` record may take to settle before a row counts it. */
const SETTLE_CEILING_MS = 30_000;
const SETTLE_POLL_MS = 200;

function buildWorld(discord: FakeDiscord) {
  const messagesGuild = discord.createGuild({ name: 'Faults' });
  const editGuild = discord.createGuild({ name: 'Faults (edit mode)' });
  const moderators = [messagesGuild, editGuild].map((guild) =>
    discord.createRole({
      guildId: guild.id,
      name: 'moderators',
      permissions: PermissionFlagsBits.ManageMessages,
    }),
  );
  // alice moderates (she may delete the bot's messages); carol asks the "next mention".
  const members = ['alice', 'bob', 'carol'].map((username) => {
    const user = discord.createUser({ username });
    for (const [index, guild] of [messagesGuild, editGuild].entries()) {
      discord.addMember({ guildId: guild.id, userId: user.id });
      const role = moderators[index];
      if (username === 'alice' && role !== undefined) {
        discord.build.updateMember({ guildId: guild.id, userId: user.id, roleIds: [role.id] });
      }
    }
    return user;
  });
  return { messagesGuild, editGuild, members };
}

export type FaultWorldShape = ReturnType<typeof buildWorld>;

export interface Measurement {
  verdicts: TriggerVerdict[];
  lostTurns: number;
  streamingRecords: number;
  /** The records of the measured channels, as read. */
  turns: RecordedTurn[];
}

export class FaultWorld {
  readonly harness: BotHarness<FaultWorldShape>;
  readonly #authors = new Map<string, string>();

  private constructor(harness: BotHarness<FaultWorldShape>) {
    this.harness = harness;
    this.healProvider();
  }

  /** The provider answers every request with NEXT_MENTION_ANSWER again. */
  healProvider(): void {
    this.harness.llm.handle(() => textScript(NEXT_MENTION_ANSWER));
  }

  /** `serverUrl`: a PostgreSQL server of the test's own (default: TEST_DATABASE_URL's, or PGlite). */
  static async start(
    options: { env?: Record<string, string>; serverUrl?: string } = {},
  ): Promise<FaultWorld> {
    const serverUrl = options.serverUrl ?? testServerUrl();
    const harness = await startHarness<FaultWorldShape>({
      databaseKind: serverUrl === undefined ? 'pglite' : 'postgres',
      ...(serverUrl === undefined ? {} : { serverUrl }),
      setup: buildWorld,
      seed: async (db, world) => {
        await updateScopeSettings(
          db,
          { id: world.editGuild.id, kind: 'guild' },
          { deliveryMode: 'edit' },
        );
      },
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    return new FaultWorld(harness);
  }

  get discord(): FakeDiscord {
    return this.harness.discord;
  }

  get members() {
    return this.harness.world.members;
  }

  /** A fresh channel for one row (in the edit-mode guild when asked). */
  channel(name: string, options: { delivery?: 'messages' | 'edit' } = {}): string {
    const guild =
      options.delivery === 'edit' ? this.harness.world.editGuild : this.harness.world.messagesGuild;
    return this.discord.createChannel({ guildId: guild.id, name }).id;
  }

  /** A member mentions the bot; the mention is recorded for accounting. */
  mention(options: { channelId: string; authorId: string; text: string }): TriggerRecord {
    const message = this.discord.postMessage({
      authorId: options.authorId,
      channelId: options.channelId,
      content: `<@${this.discord.botUserId}> ${options.text}`,
    });
    this.#authors.set(message.id, options.authorId);
    return { id: message.id, channelId: options.channelId, authorId: options.authorId };
  }

  /** Resolves true once `accepts` holds (re-checked on every Discord event and log line). */
  until(accepts: () => boolean, ceilingMs = ROW_WAIT_CEILING_MS): Promise<boolean> {
    if (accepts()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (value: boolean): void => {
        clearTimeout(timer);
        unsubscribeDiscord();
        unsubscribeLogs();
        resolve(value);
      };
      const check = (): void => {
        if (accepts()) finish(true);
      };
      const unsubscribeDiscord = this.discord.subscribe(check);
      const unsubscribeLogs = this.harness.bot.subscribe(check);
      const timer = setTimeout(() => finish(false), ceilingMs);
    });
  }

  /** The bot messages in a channel now, oldest first. */
  botMessages(channelId: string): APIMessage[] {
    return this.discord
      .readChannel(channelId)
      .filter((message) => message.author.id === this.discord.botUserId)
      .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
  }

  /** Whether a bot message replies to the trigger (a reply, a notice or a note). */
  seen(trigger: TriggerRecord, where: (message: APIMessage) => boolean = () => true): boolean {
    return this.botMessages(trigger.channelId).some(
      (message) => message.message_reference?.message_id === trigger.id && where(message),
    );
  }

  /** Whether the bot logged the end of the turn answering this trigger. */
  turnFinished(trigger: TriggerRecord): boolean {
    return this.harness.bot
      .logs()
      .some(
        (line) => line.json?.['msg'] === 'turn finished' && line.json['messageId'] === trigger.id,
      );
  }

  /**
   * "The channel answers the next mention": a fresh mention, answered with the default script.
   * Returns the time from `since` (the end of the fault) to the answer, or undefined.
   */
  async nextMentionAnswered(
    channelId: string,
    since: number,
    authorId = this.members[2]?.id ?? '',
  ): Promise<number | undefined> {
    const trigger = this.mention({
      channelId,
      authorId,
      text: 'are you still there?',
    });
    const answered = await this.until(() =>
      this.seen(trigger, (message) => message.content === NEXT_MENTION_ANSWER),
    );
    return answered ? Date.now() - since : undefined;
  }

  /** What became of the triggers, and the records of these channels left `streaming`. */
  async measure(
    triggers: readonly TriggerRecord[],
    channelIds: readonly string[],
    options: { modelTexts?: readonly string[] } = {},
  ): Promise<Measurement> {
    const turns = await this.#turnsIn(channelIds);
    const botMessages = channelIds.flatMap((channelId) =>
      this.botMessages(channelId).map((message): VisibleBotMessage => ({
        id: message.id,
        channelId,
        replyTo: message.message_reference?.message_id,
        content: message.content,
        hasRetry: hasRetryButton(message),
      })),
    );
    const verdicts = accountForTriggers({
      triggers,
      botMessages,
      turns,
      authorOf: (messageId) => this.#authors.get(messageId),
      modelTexts: [NEXT_MENTION_ANSWER, ...(options.modelTexts ?? [])],
    });
    return {
      verdicts,
      lostTurns: verdicts.filter((verdict) => verdict.outcome === 'lost').length,
      streamingRecords: streamingRecords(turns),
      turns,
    };
  }

  async dispose(): Promise<void> {
    await this.harness.dispose();
  }

  async #turnsIn(channelIds: readonly string[]): Promise<RecordedTurn[]> {
    if (this.harness.database.kind === 'pglite') return this.#readTurns(channelIds);
    // Read live on PostgreSQL. A reply the member already sees may still be writing its record
    // (the end of a turn is written after its last message), so a `streaming` row gets a while to
    // settle; one still `streaming` after SETTLE_CEILING_MS is what the row reports.
    const settleBy = Date.now() + SETTLE_CEILING_MS;
    for (;;) {
      const turns = await this.#readTurns(channelIds);
      if (streamingRecords(turns) === 0 || Date.now() >= settleBy) return turns;
      await delay(SETTLE_POLL_MS);
    }
  }

  async #readTurns(channelIds: readonly string[]): Promise<RecordedTurn[]> {
    const { bot, database } = this.harness;
    const onPglite = database.kind === 'pglite';
    // A graceful stop lets the turn in flight write its record (a kill could catch it between its
    // last message and its final write, which is not what a fault left behind).
    if (onPglite) await bot.stop();
    const turns: RecordedTurn[] = [];
    try {
      await this.harness.withDatabase(async (db) => {
        const result: unknown = await db.execute(
          sql`select role, status, channel_id, trigger_message_id, discord_message_ids, content, created_at
              from conversation_turns
              where channel_id in (${sql.join(
                channelIds.map((id) => sql`${id}`),
                sql`, `,
              )})`,
        );
        for (const row of (result as { rows: Record<string, unknown>[] }).rows) {
          turns.push({
            role: row['role'] as RecordedTurn['role'],
            status: row['status'] as RecordedTurn['status'],
            channelId: String(row['channel_id']),
            triggerMessageId: (row['trigger_message_id'] as string | null) ?? null,
            discordMessageIds: (row['discord_message_ids'] as string[] | null) ?? [],
            content: (row['content'] as string | null) ?? '',
            createdAt: new Date(row['created_at'] as string | Date),
          });
        }
      });
    } finally {
      if (onPglite) {
        bot.restart();
        await bot.waitUntilConnected();
      }
    }
    return turns;
  }
}

/** Whether a bot message carries a Retry button (a failure notice, or a restart's note). */
export function hasRetryButton(message: APIMessage): boolean {
  return JSON.stringify(message.components ?? []).includes('"custom_id":"retry:');
}
