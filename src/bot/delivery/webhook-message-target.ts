import { DiscordAPIError, RESTJSONErrorCodes, Routes, type Message, type REST } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { CharacterVoice } from './character-voice.ts';
import {
  webhookBudgetKey,
  WEBHOOK_ROUTES,
  type ChannelWebhooks,
  type ManagedWebhook,
} from './channel-webhooks.ts';
import { buttonRows, classify, DiscordMessageTarget } from './discord-message-target.ts';
import {
  TargetWriteError,
  type AllowedMentions,
  type MessageEdit,
  type MessageTarget,
  type OutgoingMessage,
} from './message-target.ts';
import { UnsettledExecutes } from './unsettled-executes.ts';

export interface WebhookMessageTargetOptions {
  /** The bot's REST: the channel read that looks for a create whose answer was lost. */
  rest: REST;
  /**
   * The webhook's own routes (execute, edit, delete): a REST that never retries a request by
   * itself, so a create whose answer is lost is looked for before it is sent again.
   */
  webhookRest: REST;
  clock: Clock;
  webhooks: ChannelWebhooks;
  voice: CharacterVoice;
  /** Where the messages appear: the channel, or a thread of `webhookChannelId`. */
  channelId: string;
  /** The channel whose webhook posts (a thread's parent; the channel itself otherwise). */
  webhookChannelId: string;
  /**
   * The bot's own target in the channel, heading each message with the character's name
   * (NamedMessageTarget): typing, and every write when no webhook may be used.
   */
  fallback: MessageTarget;
  /** Told the id of every message posted under the character (replies to it address it). */
  onPosted?(messageId: string, voice: CharacterVoice): void;
}

/**
 * A character's messages through the channel's managed webhook, under its name and avatar: an
 * execute with `wait=true` (and `thread_id` in a thread) creates, the webhook's message routes
 * edit and delete, every body with explicit allowed_mentions. "Unknown Webhook" on a create
 * means someone deleted it: a new one is made and the create sent once more. Without Manage
 * Webhooks the character still speaks, through the bot, headed by its name. A webhook cannot
 * reply to a message: `replyTo` is left out. Writes draw from the webhook's budget. A create
 * whose answer was lost (a 5xx, a cut connection) fails as transient; the retry first looks for
 * it in the channel (UnsettledExecutes), since an execute carries no nonce.
 */
export class WebhookMessageTarget implements MessageTarget {
  readonly #options: WebhookMessageTargetOptions;
  /** Messages the fallback posted: they are the bot's, edited and deleted through it. */
  readonly #postedByFallback = new Set<string>();
  /** Messages this target posted through the webhook (a lost create is never one of them). */
  readonly #posted = new Set<string>();
  readonly #unsettled: UnsettledExecutes;
  #useFallback = false;

  constructor(options: WebhookMessageTargetOptions) {
    this.#options = options;
    this.#unsettled = new UnsettledExecutes({
      rest: options.rest,
      clock: options.clock,
      channelId: options.channelId,
    });
  }

  get channelId(): string {
    return this.#options.channelId;
  }

  get characterName(): string {
    return this.#options.voice.name;
  }

  get budgetKey(): string {
    return this.#useFallback
      ? this.#options.channelId
      : webhookBudgetKey(this.#options.webhookChannelId);
  }

  async send(message: OutgoingMessage, signal?: AbortSignal): Promise<string> {
    const { webhooks, webhookChannelId } = this.#options;
    const webhook = await this.#webhook();
    if (webhook === undefined) return this.#sendThroughFallback(message, signal);
    const found =
      message.nonce === undefined
        ? undefined
        : await this.#unsettled.find(message.nonce, this.#posted);
    if (found !== undefined) return this.#posting(found, message);
    let id: string;
    try {
      id = await this.#executeOnce(webhook, message, signal);
    } catch (error) {
      if (!isUnknownWebhook(error)) throw error;
      webhooks.forget(webhookChannelId, webhook.id);
      const again = await this.#webhook();
      if (again === undefined) return this.#sendThroughFallback(message, signal);
      id = await this.#executeOnce(again, message, signal);
    }
    return this.#posting(id, message);
  }

  /** A create's message is known: remembered, and told to whoever routes replies to it. */
  #posting(id: string, message: OutgoingMessage): string {
    if (message.nonce !== undefined) this.#unsettled.settled(message.nonce);
    this.#posted.add(id);
    this.#options.onPosted?.(id, this.#options.voice);
    return id;
  }

  /**
   * One execute. Unknown Webhook is thrown as it came (the caller makes the webhook again);
   * any other failure is classified, and one whose outcome is unknown is noted for the retry
   * to look for — or, without a nonce to find it by, not retried at all.
   */
  async #executeOnce(
    webhook: ManagedWebhook,
    message: OutgoingMessage,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const { nonce } = message;
    if (nonce !== undefined) this.#unsettled.sending(nonce);
    try {
      return await this.#execute(webhook, message, signal);
    } catch (error) {
      if (isUnknownWebhook(error)) throw error;
      const failure = classify(error, this.#request(WEBHOOK_ROUTES.execute));
      if (failure.failure !== 'transient') throw failure;
      if (nonce === undefined) {
        throw new TargetWriteError('other', 'a webhook write may have been posted', {
          ...this.#request(WEBHOOK_ROUTES.execute),
          cause: failure,
        });
      }
      this.#unsettled.lost(nonce, { webhookId: webhook.id, content: message.content });
      throw failure;
    }
  }

  async edit(messageId: string, edit: MessageEdit): Promise<void> {
    if (this.#postedByFallback.has(messageId)) {
      await this.#options.fallback.edit(messageId, edit);
      return;
    }
    const webhook = await this.#webhook();
    if (webhook === undefined) throw gone(this.#request(WEBHOOK_ROUTES.edit, messageId));
    try {
      await this.#options.webhookRest.patch(
        Routes.webhookMessage(webhook.id, webhook.token, messageId),
        {
          body: {
            content: edit.content,
            allowed_mentions: apiMentions(edit.allowedMentions),
            ...(edit.components === undefined
              ? {}
              : { components: buttonRows(edit.components).map((row) => row.toJSON()) }),
          },
          query: this.#threadQuery(),
          auth: false,
        },
      );
    } catch (error) {
      throw classify(error, this.#request(WEBHOOK_ROUTES.edit, messageId));
    }
  }

  async delete(messageId: string): Promise<void> {
    if (this.#postedByFallback.has(messageId)) {
      await this.#options.fallback.delete(messageId);
      return;
    }
    const webhook = await this.#webhook();
    if (webhook === undefined) throw gone(this.#request(WEBHOOK_ROUTES.delete, messageId));
    try {
      await this.#options.webhookRest.delete(
        Routes.webhookMessage(webhook.id, webhook.token, messageId),
        {
          query: this.#threadQuery(),
          auth: false,
        },
      );
    } catch (error) {
      throw classify(error, this.#request(WEBHOOK_ROUTES.delete, messageId));
    }
  }

  sendTyping(): Promise<void> {
    return this.#options.fallback.sendTyping();
  }

  /** The channel's webhook; undefined (and the fallback from now on) without Manage Webhooks. */
  async #webhook(): Promise<ManagedWebhook | undefined> {
    if (this.#useFallback) return undefined;
    try {
      return await this.#options.webhooks.get(this.#options.webhookChannelId);
    } catch (error) {
      if (error instanceof TargetWriteError && error.failure === 'forbidden') {
        this.#useFallback = true;
        return undefined;
      }
      throw error;
    }
  }

  async #execute(
    webhook: ManagedWebhook,
    message: OutgoingMessage,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const { voice } = this.#options;
    const query = this.#threadQuery();
    query.set('wait', 'true');
    const sent = (await this.#options.webhookRest.post(Routes.webhook(webhook.id, webhook.token), {
      body: {
        content: message.content,
        username: voice.name,
        ...(voice.avatarUrl === undefined ? {} : { avatar_url: voice.avatarUrl }),
        allowed_mentions: apiMentions(message.allowedMentions),
        ...(message.components === undefined || message.components.length === 0
          ? {}
          : { components: buttonRows(message.components).map((row) => row.toJSON()) }),
      },
      query,
      auth: false,
      ...(signal === undefined ? {} : { signal }),
    })) as { id: string };
    return sent.id;
  }

  async #sendThroughFallback(message: OutgoingMessage, signal?: AbortSignal): Promise<string> {
    const id = await this.#options.fallback.send(message, signal);
    this.#postedByFallback.add(id);
    return id;
  }

  #threadQuery(): URLSearchParams {
    const { channelId, webhookChannelId } = this.#options;
    return new URLSearchParams(channelId === webhookChannelId ? {} : { thread_id: channelId });
  }

  #request(route: string, messageId?: string) {
    return {
      route,
      channelId: this.#options.channelId,
      ...(messageId === undefined ? {} : { messageId }),
    };
  }
}

/**
 * The target of a message the channel's managed webhook posted earlier (a character's, read
 * back after a restart): its edits go through the webhook's routes; anything it sends goes
 * through the bot. Undefined where no webhook posts (a DM).
 */
export function targetOfPostedMessage(
  message: Message,
  options: Pick<WebhookMessageTargetOptions, 'rest' | 'clock' | 'webhooks'>,
): WebhookMessageTarget | undefined {
  const { channel } = message;
  if (!channel.isSendable() || channel.isDMBased()) return undefined;
  const webhookChannelId = channel.isThread() ? channel.parentId : channel.id;
  if (webhookChannelId === null) return undefined;
  return new WebhookMessageTarget({
    ...options,
    webhookRest: options.webhooks.webhookRest,
    // Shown as it was posted; nothing is remembered under it (no onPosted: it edits only).
    voice: { characterId: '', name: message.author.username, avatarUrl: undefined },
    channelId: channel.id,
    webhookChannelId,
    fallback: new DiscordMessageTarget(channel),
  });
}

/** allowed_mentions as the API spells it (the webhook routes take raw bodies). */
function apiMentions(mentions: AllowedMentions): {
  parse: string[];
  users?: string[];
  replied_user: boolean;
} {
  return {
    parse: [...mentions.parse],
    ...(mentions.users === undefined ? {} : { users: [...mentions.users] }),
    replied_user: mentions.repliedUser,
  };
}

function isUnknownWebhook(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownWebhook;
}

function gone(request: { route: string; channelId: string; messageId?: string }): TargetWriteError {
  return new TargetWriteError('gone', 'the channel webhook is no longer usable', request);
}
