import { LruMap } from '../../../core/lru-map.ts';
import type { Logger } from '../../../core/logger.ts';
import { EMPTY_USAGE, type TokenUsage } from '../../../core/stream-part.ts';
import type { ScopeSettings } from '../../../core/settings.ts';
import type { Database } from '../../../db/database.ts';
import { openApiKey } from '../../../db/scope-settings-repository.ts';
import {
  saveSummary,
  summaryOf,
  turnsAfter,
  unsummarizedTurns,
} from '../../../db/summary-repository.ts';
import { tokenCost } from '../../../providers/model-price.ts';
import type { ProviderFactory } from '../../../providers/provider-factory.ts';
import type { SecretBox } from '../../../security/secret-box.ts';
import { dailyLimitsOf, type DailyBudget } from '../../limits/daily-budget.ts';
import { buildSummaryRequest } from './summary-prompt.ts';

export interface RollingSummarizerOptions {
  db: Database;
  providers: ProviderFactory;
  secretBox: SecretBox;
  dailyBudget: DailyBudget;
  loadSettings(scopeId: string): Promise<ScopeSettings>;
  logger: Logger;
  /** At most one summary call per channel per this many new turns. */
  everyTurns: number;
  /** The newest turns never summarised: they are still in the context window. */
  keepRecent: number;
  /** Aborted at shutdown. */
  signal: AbortSignal;
}

export const DEFAULT_SUMMARY_CADENCE = { everyTurns: 20, keepRecent: 40 } as const;
/** The turns one call folds in at most (a long backlog is caught up call by call). */
const MAX_TURNS_PER_CALL = 80;
/**
 * The stored turns one answered turn usually adds as the check counts them: the member's
 * message and the reply. A check that finds a call k turns short skips the next k ÷ this checks;
 * turns that add more (a coalesced batch, another process's turns meanwhile) make the call come
 * a few turns late, and turns that add fewer only cost an early check.
 */
const TURNS_STORED_PER_TURN = 2;
/** Channels whose skipped checks are remembered (forgetting one only costs a check). */
const CHANNELS_REMEMBERED = 10_000;

/**
 * Keeps each channel's rolling summary in the background: after a turn, when at
 * least `everyTurns` stored turns beyond the newest `keepRecent` are not yet summarised, one
 * model call with the scope's provider folds them into the summary. Never blocks a reply
 * (fire and forget, one job per channel at a time), counts its tokens against the scope's daily
 * budget, and is skipped when the scope has no working key or its budget is spent. A check
 * that finds the call still k turns away skips the checks of the next k ÷ 2 turns: a steady
 * channel pays one count per few turns, not one per turn (turns another process answers meanwhile
 * only make the call come a few turns late).
 */
export class RollingSummarizer {
  readonly #options: RollingSummarizerOptions;
  readonly #running = new Map<string, Promise<void>>();
  /** Channel → checks still to skip. */
  readonly #skips = new LruMap<string, number>(CHANNELS_REMEMBERED);

  constructor(options: RollingSummarizerOptions) {
    this.#options = options;
  }

  /** Starts an update for the channel unless one is running; returns at once. */
  schedule(target: { channelId: string; scopeId: string }): void {
    if (this.#running.has(target.channelId) || this.#options.signal.aborted) return;
    const skips = this.#skips.get(target.channelId) ?? 0;
    if (skips > 0) {
      this.#skips.set(target.channelId, skips - 1);
      return;
    }
    const job = this.#update(target)
      .catch((error: unknown) =>
        this.#options.logger.warn({ err: error, ...target }, 'summary update failed'),
      )
      .finally(() => this.#running.delete(target.channelId));
    this.#running.set(target.channelId, job);
  }

  /** Resolves when the channel's running update (if any) is over (tests, shutdown). */
  async idle(channelId: string): Promise<void> {
    await this.#running.get(channelId);
  }

  /** How many of `pending` turns (oldest first, at most a call's worth) one call folds in. */
  #foldCount(pending: number): number {
    return pending === MAX_TURNS_PER_CALL + this.#options.keepRecent
      ? MAX_TURNS_PER_CALL
      : Math.max(0, pending - this.#options.keepRecent);
  }

  async #update(target: { channelId: string; scopeId: string }): Promise<void> {
    const { db, logger } = this.#options;
    const readAtMost = MAX_TURNS_PER_CALL + this.#options.keepRecent;
    // The check after every turn counts; the turns are read only once a call is due.
    const unsummarized = await unsummarizedTurns(db, {
      channelId: target.channelId,
      atMost: readAtMost,
    });
    const short = this.#options.everyTurns - this.#foldCount(unsummarized);
    if (short > 0) {
      this.#skips.set(target.channelId, Math.floor(short / TURNS_STORED_PER_TURN));
      return;
    }
    const summary = await summaryOf(db, target.channelId);
    const pending = await turnsAfter(db, {
      channelId: target.channelId,
      after: summary?.coveredUntil,
      limit: readAtMost,
    });
    const fold = pending.slice(0, this.#foldCount(pending.length));
    if (fold.length < this.#options.everyTurns) return;
    const last = fold.at(-1);
    if (last === undefined) return;

    const settings = await this.#options.loadSettings(target.scopeId);
    if (await this.#options.dailyBudget.exhausted(target.scopeId, dailyLimitsOf(settings))) {
      logger.info(target, 'summary skipped: the daily token budget is spent');
      return;
    }
    let model;
    try {
      model = this.#options.providers.resolve({
        provider: settings.provider,
        model: settings.model,
        apiKey: openApiKey({
          box: this.#options.secretBox,
          settings,
          provider: this.#options.providers.target(settings).provider,
        }),
      });
    } catch {
      logger.info(target, 'summary skipped: no working provider key');
      return;
    }
    const request = buildSummaryRequest({
      model: model.modelId,
      previousSummary: summary?.content,
      turns: fold,
    });
    let text = '';
    let usage: TokenUsage = EMPTY_USAGE;
    for await (const part of model.chatModel.stream(request, this.#options.signal)) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'step-end') usage = part.usage;
      else if (part.type === 'error') throw part.error;
    }
    // A summary is nobody's turn: it counts for the server, under no member.
    await this.#options.dailyBudget.record(target.scopeId, {
      ...usage,
      cost: tokenCost(usage, model.info.price),
      model: model.modelId,
      turns: 0,
    });
    if (text.trim() === '') return;
    const saved = await saveSummary(db, {
      channelId: target.channelId,
      scopeId: target.scopeId,
      content: text.trim(),
      coveredUntil: last.createdAt,
      coveredTurns: (summary?.coveredTurns ?? 0) + fold.length,
      previousCoveredUntil: summary?.coveredUntil,
    });
    logger.info({ ...target, turns: fold.length, saved, ...usage }, 'summary updated');
  }
}
