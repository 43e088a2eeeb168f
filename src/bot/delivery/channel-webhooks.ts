import { Routes, type REST } from 'discord.js';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import { classify } from './discord-message-target.ts';

/** The name of the one webhook the bot keeps per channel (characters set their own per message). */
export const MANAGED_WEBHOOK_NAME = 'Tomodachi cast';
/** Channels whose managed webhook is remembered; a forgotten one is looked up again. */
const REMEMBERED_CHANNELS = 2_000;

export const WEBHOOK_ROUTES = {
  list: 'GET /channels/:id/webhooks',
  create: 'POST /channels/:id/webhooks',
  execute: 'POST /webhooks/:id/:token',
  edit: 'PATCH /webhooks/:id/:token/messages/:id',
  delete: 'DELETE /webhooks/:id/:token/messages/:id',
} as const;

/** A channel's webhook the bot manages: executed with its token (a secret: never logged). */
export interface ManagedWebhook {
  id: string;
  token: string;
  channelId: string;
}

/** The key of the write budget all webhook writes of a channel share (threads included). */
export function webhookBudgetKey(channelId: string): string {
  return `webhook:${channelId}`;
}

interface ListedWebhook {
  id: string;
  name: string | null;
  token?: string;
  application_id: string | null;
}

/**
 * One managed webhook per channel, shared by its threads (`thread_id`): found among the
 * channel's webhooks (the bot's application made it, under its name) or created when first
 * needed, and created again after Discord answers "Unknown Webhook" (someone deleted it).
 * Concurrent callers for one channel share one lookup. Failures are classified write errors
 * (`forbidden` without Manage Webhooks).
 */
export class ChannelWebhooks {
  /**
   * Where the webhooks' own routes go (execute, edit and delete of their messages): a REST that
   * never retries by itself, since an execute carries no nonce (webhook-message-target.ts).
   */
  readonly webhookRest: REST;
  readonly #rest: REST;
  readonly #applicationId: string;
  readonly #logger: Logger;
  readonly #byChannel = new LruMap<string, Promise<ManagedWebhook>>(REMEMBERED_CHANNELS);
  readonly #channelOf = new LruMap<string, string>(REMEMBERED_CHANNELS);

  /** `rest`: the bot's own (list and create); `webhookRest`: see above. */
  constructor(options: { rest: REST; webhookRest: REST; applicationId: string; logger: Logger }) {
    this.#rest = options.rest;
    this.webhookRest = options.webhookRest;
    this.#applicationId = options.applicationId;
    this.#logger = options.logger;
  }

  /** The managed webhook of a channel (never a thread: pass the thread's parent). */
  get(channelId: string): Promise<ManagedWebhook> {
    const known = this.#byChannel.get(channelId);
    if (known !== undefined) return known;
    const found = this.#findOrCreate(channelId);
    this.#byChannel.set(channelId, found);
    found.catch(() => {
      if (this.#byChannel.get(channelId) === found) this.#byChannel.delete(channelId);
    });
    return found;
  }

  /** Forgets a webhook Discord no longer knows; the next `get` finds or makes another. */
  forget(channelId: string, webhookId: string): void {
    this.#channelOf.delete(webhookId);
    // At once: a caller retrying now must not be handed the dead webhook again. (Should a new
    // lookup already be under way, it is only made again: the list finds the same webhook.)
    this.#byChannel.delete(channelId);
  }

  /** The channel of one of the managed webhooks (for the rate-limit headers of its writes). */
  channelOf(webhookId: string): string | undefined {
    return this.#channelOf.get(webhookId);
  }

  async #findOrCreate(channelId: string): Promise<ManagedWebhook> {
    try {
      const listed = (await this.#rest.get(Routes.channelWebhooks(channelId))) as ListedWebhook[];
      const mine = listed.find(
        (webhook) =>
          webhook.application_id === this.#applicationId &&
          webhook.name === MANAGED_WEBHOOK_NAME &&
          webhook.token !== undefined,
      );
      const webhook = mine ?? (await this.#create(channelId));
      this.#channelOf.set(webhook.id, channelId);
      return { id: webhook.id, token: webhook.token ?? '', channelId };
    } catch (error) {
      throw classify(error, { route: WEBHOOK_ROUTES.list, channelId });
    }
  }

  async #create(channelId: string): Promise<ListedWebhook> {
    const created = (await this.#rest.post(Routes.channelWebhooks(channelId), {
      body: { name: MANAGED_WEBHOOK_NAME },
    })) as ListedWebhook;
    this.#logger.info({ channelId, webhookId: created.id }, 'created the channel webhook');
    return created;
  }
}
