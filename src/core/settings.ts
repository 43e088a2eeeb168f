import type { ProviderId } from './provider.ts';

export type HumanizerDegree = 0 | 1 | 2 | 3;
export type DeliveryMode = 'messages' | 'edit';
export type QueuePolicy = 'coalesce' | 'queue';
export type ScopeKind = 'guild' | 'dm';

/**
 * A scope's settings as the rest of the bot sees them. `undefined` means "the operator's
 * default" (from the environment). The API key is held only as ciphertext here.
 */
export interface ScopeSettings {
  scopeId: string;
  provider: ProviderId | undefined;
  model: string | undefined;
  apiKeyCiphertext: string | undefined;
  personaName: string | undefined;
  personaInstructions: string | undefined;
  humanizerDegree: HumanizerDegree;
  temperature: number | undefined;
  language: string | undefined;
  timezone: string | undefined;
  triggerWords: readonly string[];
  autoReplyChannelIds: readonly string[];
  autoReplyEveryN: number | undefined;
  deliveryMode: DeliveryMode;
  queuePolicy: QueuePolicy;
  queueDepth: number;
  memberTurnsPerMinute: number;
  dailyTokenBudget: number | undefined;
  /** Nano-dollars the scope may spend per UTC day. */
  dailyCostBudget: number | undefined;
  /** Tokens each member may spend per UTC day. */
  memberDailyTokenBudget: number | undefined;
  /** Nano-dollars each member may spend per UTC day. */
  memberDailyCostBudget: number | undefined;
  featureFlags: Readonly<Record<string, unknown>>;
  version: number;
}

/** What a scope that never ran a slash command gets. Declared once. */
export function defaultScopeSettings(scopeId: string): ScopeSettings {
  return {
    scopeId,
    provider: undefined,
    model: undefined,
    apiKeyCiphertext: undefined,
    personaName: undefined,
    personaInstructions: undefined,
    humanizerDegree: 1,
    temperature: undefined,
    language: undefined,
    timezone: undefined,
    triggerWords: [],
    autoReplyChannelIds: [],
    autoReplyEveryN: undefined,
    deliveryMode: 'messages',
    queuePolicy: 'coalesce',
    queueDepth: 3,
    memberTurnsPerMinute: 10,
    dailyTokenBudget: undefined,
    dailyCostBudget: undefined,
    memberDailyTokenBudget: undefined,
    memberDailyCostBudget: undefined,
    featureFlags: {},
    version: 0,
  };
}
