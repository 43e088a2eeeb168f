import type { APIMessage } from 'discord-api-types/v10';
import { messagePayload, type PayloadContext } from '../payloads/message-payloads.ts';
import type { RequestLogEntry } from '../http/request-log.ts';
import type { MessageRecord } from '../state/records.ts';
import type {
  EventHub,
  FakeDiscordEvent,
  GatewayLifecycleEvent,
  WaitOptions,
} from './event-hub.ts';

/** Which messages a wait is for. */
export interface MessageFilter {
  channelId?: string;
  authorId?: string;
  /** Further condition on the message as its viewer sees it. */
  where?: (message: APIMessage) => boolean;
}

/**
 * Await helpers on top of the hub: each resolves on the first matching event from now on —
 * the next message in a channel, its next edit or deletion, a request, a gateway milestone.
 */
export class Waiters {
  readonly #hub: EventHub;
  readonly #payloads: PayloadContext;

  constructor(hub: EventHub, payloads: PayloadContext) {
    this.#hub = hub;
    this.#payloads = payloads;
  }

  message(filter: MessageFilter = {}, options: WaitOptions = {}): Promise<APIMessage> {
    return this.#messageEvent('message-create', filter, options);
  }

  messageUpdate(
    filter: MessageFilter & { messageId?: string } = {},
    options: WaitOptions = {},
  ): Promise<APIMessage> {
    return this.#messageEvent('message-update', filter, options);
  }

  messageDelete(
    filter: { channelId?: string; messageId?: string } = {},
    options: WaitOptions = {},
  ): Promise<string> {
    return this.#hub.waitFor(
      (event) =>
        event.type === 'message-delete' &&
        (filter.channelId === undefined || event.message.channelId === filter.channelId) &&
        (filter.messageId === undefined || event.message.id === filter.messageId)
          ? event.message.id
          : undefined,
      `a deletion ${describe(filter)}`,
      options,
    );
  }

  request(
    filter: { method?: string; route?: string | RegExp; status?: number },
    options: WaitOptions = {},
  ): Promise<RequestLogEntry> {
    return this.#hub.waitFor(
      (event) => {
        if (event.type !== 'request') return undefined;
        const { entry } = event;
        const routeMatches =
          filter.route === undefined ||
          (typeof filter.route === 'string'
            ? entry.route === filter.route || entry.path === filter.route
            : filter.route.test(entry.path));
        const matches =
          routeMatches &&
          (filter.method === undefined || entry.method === filter.method) &&
          (filter.status === undefined || entry.status === filter.status);
        return matches ? entry : undefined;
      },
      `a request ${describe(filter)}`,
      options,
    );
  }

  typing(
    filter: { channelId?: string; userId?: string } = {},
    options: WaitOptions = {},
  ): Promise<{ channelId: string; userId: string }> {
    return this.#hub.waitFor(
      (event) =>
        event.type === 'typing' &&
        (filter.channelId === undefined || event.channelId === filter.channelId) &&
        (filter.userId === undefined || event.userId === filter.userId)
          ? { channelId: event.channelId, userId: event.userId }
          : undefined,
      `typing ${describe(filter)}`,
      options,
    );
  }

  gateway<Kind extends GatewayLifecycleEvent['kind']>(
    kind: Kind,
    options: WaitOptions = {},
  ): Promise<Extract<GatewayLifecycleEvent, { kind: Kind }>> {
    return this.#hub.waitFor(
      (event) =>
        event.type === 'gateway' && event.event.kind === kind
          ? (event.event as Extract<GatewayLifecycleEvent, { kind: Kind }>)
          : undefined,
      `gateway ${kind}`,
      options,
    );
  }

  event<T>(
    select: (event: FakeDiscordEvent) => T | undefined,
    description: string,
    options: WaitOptions = {},
  ): Promise<T> {
    return this.#hub.waitFor(select, description, options);
  }

  #messageEvent(
    type: 'message-create' | 'message-update',
    filter: MessageFilter & { messageId?: string },
    options: WaitOptions,
  ): Promise<APIMessage> {
    return this.#hub.waitFor(
      (event) => {
        if (event.type !== type) return undefined;
        const message: MessageRecord = event.message;
        if (filter.channelId !== undefined && message.channelId !== filter.channelId)
          return undefined;
        if (filter.authorId !== undefined && message.authorId !== filter.authorId) return undefined;
        if (filter.messageId !== undefined && message.id !== filter.messageId) return undefined;
        const view = messagePayload(this.#payloads, message, {
          forGateway: false,
          viewerId: message.visibleTo ?? this.#payloads.world.bot.userId,
        });
        return filter.where === undefined || filter.where(view) ? view : undefined;
      },
      `${type === 'message-create' ? 'a message' : 'an edit'} ${describe(filter)}`,
      options,
    );
  }
}

function describe(filter: object): string {
  const parts = Object.entries(filter)
    .filter(([, value]) => value !== undefined && typeof value !== 'function')
    .map(([key, value]) => `${key}=${String(value)}`);
  return parts.length === 0 ? '(any)' : `(${parts.join(', ')})`;
}
