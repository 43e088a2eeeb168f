import type {
  APIInteraction,
  InteractionResponseType,
  InteractionType,
} from 'discord-api-types/v10';

/** One callback the bot sent for an interaction (`POST /interactions/:id/:token/callback`). */
export interface InteractionCallbackRecord {
  type: InteractionResponseType;
  /** The callback's `data` (message fields, autocomplete choices, or the modal). */
  data: Record<string, unknown> | undefined;
  /** Epoch ms on the fake's clock. */
  at: number;
  /** Milliseconds from INTERACTION_CREATE to this callback. */
  latencyMs: number;
}

/** An interaction the fake dispatched, and everything the bot did with it. */
export interface InteractionRecord {
  id: string;
  token: string;
  type: InteractionType;
  userId: string;
  channelId: string;
  guildId: string | null;
  createdAt: number;
  commandName: string | null;
  /** The message a component (or a modal opened from one) sits on. */
  sourceMessageId: string | null;
  /** Exactly what INTERACTION_CREATE carried. */
  payload: APIInteraction;
  callbacks: InteractionCallbackRecord[];
  /** The original response: the message created by callback 4/5, or the component's message for 6/7. */
  originalMessageId: string | null;
  /** A deferred (type 5) response whose loading message has not been edited yet. */
  loading: boolean;
  ephemeral: boolean;
  followUpIds: string[];
}
