import {
  InteractionResponseType,
  MessageFlags,
  type APIApplicationCommandOptionChoice,
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
} from 'discord-api-types/v10';
import type { EventHub, WaitOptions } from '../events/event-hub.ts';
import { messagePayload, type PayloadContext } from '../payloads/message-payloads.ts';
import type {
  InteractionCallbackRecord,
  InteractionRecord,
} from '../services/interaction-records.ts';
import type { MessageRecord } from '../state/records.ts';

/** Values a user types into a modal, by text input `custom_id`. */
export type ModalValues = Record<string, string>;

/**
 * What a test holds after a user invoked a command, pressed a button, submitted a modal or
 * typed into an autocomplete option: the bot's callback, its original response and follow-ups
 * as the invoking user sees them, and await helpers that resolve on events (no polling).
 */
export class InteractionHandle {
  readonly #record: InteractionRecord;
  readonly #hub: EventHub;
  readonly #payloads: PayloadContext;
  readonly #submitModal: (handle: InteractionHandle, values: ModalValues) => InteractionHandle;

  constructor(options: {
    record: InteractionRecord;
    hub: EventHub;
    payloads: PayloadContext;
    submitModal: (handle: InteractionHandle, values: ModalValues) => InteractionHandle;
  }) {
    this.#record = options.record;
    this.#hub = options.hub;
    this.#payloads = options.payloads;
    this.#submitModal = options.submitModal;
  }

  get id(): string {
    return this.#record.id;
  }

  get token(): string {
    return this.#record.token;
  }

  /** The full record (payload sent, callbacks, ids of the messages it produced). */
  get record(): Readonly<InteractionRecord> {
    return this.#record;
  }

  /** The first callback the bot sent; resolves when it arrives. */
  async response(options: WaitOptions = {}): Promise<InteractionCallbackRecord> {
    const existing = this.#record.callbacks[0];
    if (existing !== undefined) return existing;
    return this.#hub.waitFor(
      (event) =>
        event.type === 'interaction-callback' && event.interactionId === this.#record.id
          ? event.callback
          : undefined,
      `the bot's response to interaction ${this.#record.id}`,
      options,
    );
  }

  /** The original response as the invoking user sees it now (after edits), if any. */
  original(): APIMessage | undefined {
    const id = this.#record.originalMessageId;
    const message = id === null ? undefined : this.#payloads.world.messages.get(id);
    return message === undefined || message.deletedAt !== null ? undefined : this.#view(message);
  }

  /** Resolves when the original response exists and satisfies `predicate` (default: not loading). */
  async waitForOriginal(
    predicate: (message: APIMessage) => boolean = (message) =>
      ((message.flags ?? 0) & MessageFlags.Loading) === 0,
    options: WaitOptions = {},
  ): Promise<APIMessage> {
    const current = this.original();
    if (current !== undefined && predicate(current)) return current;
    return this.#hub.waitFor(
      (event) => {
        // The original of an immediate reply is created before its id is recorded; the
        // callback event that follows is when it can be matched.
        if (event.type === 'interaction-callback' && event.interactionId === this.#record.id) {
          const original = this.original();
          return original !== undefined && predicate(original) ? original : undefined;
        }
        if (event.type !== 'message-create' && event.type !== 'message-update') return undefined;
        if (event.message.id !== this.#record.originalMessageId) return undefined;
        const view = this.#view(event.message);
        return predicate(view) ? view : undefined;
      },
      `the original response of interaction ${this.#record.id}`,
      options,
    );
  }

  /** Follow-up messages as the invoking user sees them, oldest first. */
  followUps(): APIMessage[] {
    return this.#record.followUpIds.flatMap((id) => {
      const message = this.#payloads.world.messages.get(id);
      return message === undefined || message.deletedAt !== null ? [] : [this.#view(message)];
    });
  }

  /** Resolves on the next follow-up (or an existing one) that satisfies `predicate`. */
  async waitForFollowUp(
    predicate: (message: APIMessage) => boolean = () => true,
    options: WaitOptions = {},
  ): Promise<APIMessage> {
    const existing = this.followUps().find(predicate);
    if (existing !== undefined) return existing;
    return this.#hub.waitFor(
      (event) => {
        // The create event fires before the service lists the message as a follow-up: match
        // the interaction it answers (and not its original response) instead.
        if (
          event.type !== 'message-create' ||
          event.message.interaction?.interactionId !== this.#record.id ||
          event.message.id === this.#record.originalMessageId
        )
          return undefined;
        const view = this.#view(event.message);
        return predicate(view) ? view : undefined;
      },
      `a follow-up to interaction ${this.#record.id}`,
      options,
    );
  }

  /** The choices of an autocomplete answer (after `response()` resolved). */
  choices(): APIApplicationCommandOptionChoice[] | undefined {
    const callback = this.#record.callbacks.find(
      (item) => item.type === InteractionResponseType.ApplicationCommandAutocompleteResult,
    );
    return callback?.data?.choices as APIApplicationCommandOptionChoice[] | undefined;
  }

  /** The modal the bot opened, if it answered with one. */
  modal(): APIModalInteractionResponseCallbackData | undefined {
    const callback = this.#record.callbacks.find(
      (item) => item.type === InteractionResponseType.Modal,
    );
    return callback?.data as APIModalInteractionResponseCallbackData | undefined;
  }

  /** The invoking user fills in and submits the modal the bot opened. */
  submitModal(values: ModalValues): InteractionHandle {
    return this.#submitModal(this, values);
  }

  #view(message: MessageRecord): APIMessage {
    return messagePayload(this.#payloads, message, {
      forGateway: false,
      viewerId: this.#record.userId,
    });
  }
}
