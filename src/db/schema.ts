/**
 * The database schema. Discord snowflakes are text, never numbers. Changing this file means
 * running `npm run db:generate` and committing the new migration in migrations/; applied
 * migrations are never edited.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  date,
  primaryKey,
  index,
  integer,
  jsonb,
  pgTable,
  real,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

/** A settings scope: a guild, or a user's DMs (keyed by the user id, isolated from every guild). */
export const scopes = pgTable(
  'scopes',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['guild', 'dm'] }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [check('scopes_kind_check', sql`${table.kind} in ('guild', 'dm')`)],
);

/** Per-scope configuration. Null means "use the operator's default". */
export const scopeSettings = pgTable(
  'scope_settings',
  {
    scopeId: text('scope_id')
      .primaryKey()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    provider: text('provider', { enum: ['google', 'openai', 'anthropic'] }),
    model: text('model'),
    /** AES-256-GCM ciphertext from the secret box; never the plain key. */
    apiKeyCiphertext: text('api_key_ciphertext'),
    personaName: text('persona_name'),
    personaInstructions: text('persona_instructions'),
    humanizerDegree: smallint('humanizer_degree').notNull().default(1),
    temperature: real('temperature'),
    language: text('language'),
    timezone: text('timezone'),
    triggerWords: text('trigger_words')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    autoReplyChannelIds: text('auto_reply_channel_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Answer every Nth message in a channel; null or 0 is off. */
    autoReplyEveryN: integer('auto_reply_every_n'),
    deliveryMode: text('delivery_mode', { enum: ['messages', 'edit'] })
      .notNull()
      .default('messages'),
    queuePolicy: text('queue_policy', { enum: ['coalesce', 'queue'] })
      .notNull()
      .default('coalesce'),
    queueDepth: smallint('queue_depth').notNull().default(3),
    memberTurnsPerMinute: integer('member_turns_per_minute').notNull().default(10),
    /** Tokens (input + output) a scope may spend per UTC day; null is unlimited. */
    dailyTokenBudget: integer('daily_token_budget'),
    /** Dollars a scope may spend per UTC day, in nano-dollars; null is unlimited. */
    dailyCostBudget: bigint('daily_cost_budget', { mode: 'number' }),
    /** Tokens each member may spend per UTC day; null is unlimited. */
    memberDailyTokenBudget: integer('member_daily_token_budget'),
    /** Dollars each member may spend per UTC day, in nano-dollars; null is unlimited. */
    memberDailyCostBudget: bigint('member_daily_cost_budget', { mode: 'number' }),
    /** Feature switches: enabled tools, MCP servers, fetch_url, mention policy, … */
    featureFlags: jsonb('feature_flags').$type<Record<string, unknown>>().notNull().default({}),
    /** Bumped on every change so caches in every process can tell they are stale. */
    version: integer('version').notNull().default(1),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check('scope_settings_humanizer_check', sql`${table.humanizerDegree} between 0 and 3`),
    check(
      'scope_settings_temperature_check',
      sql`${table.temperature} is null or ${table.temperature} between 0 and 2`,
    ),
    check('scope_settings_delivery_check', sql`${table.deliveryMode} in ('messages', 'edit')`),
    check('scope_settings_queue_check', sql`${table.queuePolicy} in ('coalesce', 'queue')`),
    check('scope_settings_queue_depth_check', sql`${table.queueDepth} between 1 and 20`),
  ],
);

export const TURN_STATUSES = ['streaming', 'complete', 'stopped', 'failed'] as const;
export type TurnStatus = (typeof TURN_STATUSES)[number];

/**
 * One row per user turn and one per assistant reply. An assistant row is inserted as
 * `streaming` when the turn starts and written ONCE more when it ends (full text, every Discord
 * message id it spans, final status, metrics) — never per chunk.
 */
export const conversationTurns = pgTable(
  'conversation_turns',
  {
    id: uuid('id').primaryKey(),
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    role: text('role', { enum: ['user', 'assistant'] }).notNull(),
    authorId: text('author_id').notNull(),
    authorName: text('author_name'),
    /**
     * The character that spoke an assistant turn (`author_name` is then its name); null when the
     * bot spoke as itself. No foreign key: a removed character's lines stay in the history.
     */
    characterId: uuid('character_id'),
    /** For a user turn its own message; for an assistant turn the message it answers. */
    triggerMessageId: text('trigger_message_id'),
    discordMessageIds: text('discord_message_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    content: text('content').notNull().default(''),
    status: text('status', { enum: TURN_STATUSES }).notNull(),
    metrics: jsonb('metrics').$type<Record<string, unknown>>(),
    createdAt: createdAt(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** The process that streams it; a streaming row of a dead process is failed at start-up. */
    instanceId: text('instance_id'),
    /** 0–1, from core/importance.ts when the turn is stored: what the context keeps first. */
    importance: real('importance').notNull().default(0.5),
    /** Pinned turns always enter the context (within the pinned share of the budget). */
    pinnedAt: timestamp('pinned_at', { withTimezone: true }),
    /** Who pinned it: a member id, or `auto` for the first user turns after a reset. */
    pinnedBy: text('pinned_by'),
  },
  (table) => [
    check('conversation_turns_role_check', sql`${table.role} in ('user', 'assistant')`),
    check(
      'conversation_turns_status_check',
      sql`${table.status} in ('streaming', 'complete', 'stopped', 'failed')`,
    ),
    index('conversation_turns_channel_recent_idx').on(
      table.channelId,
      table.createdAt.desc(),
      table.id.desc(),
    ),
    index('conversation_turns_streaming_idx')
      .on(table.status)
      .where(sql`${table.status} = 'streaming'`),
    index('conversation_turns_trigger_idx').on(table.triggerMessageId),
    index('conversation_turns_pinned_idx')
      .on(table.channelId, table.createdAt.desc())
      .where(sql`${table.pinnedAt} is not null`),
    index('conversation_turns_important_idx')
      .on(table.channelId, table.createdAt.desc())
      .where(sql`${table.importance} >= 0.8`),
    check('conversation_turns_importance_check', sql`${table.importance} between 0 and 1`),
  ],
);

/** Per-channel "forget everything before this" markers set by /reset. */
export const resetMarkers = pgTable('reset_markers', {
  channelId: text('channel_id').primaryKey(),
  scopeId: text('scope_id')
    .notNull()
    .references(() => scopes.id, { onDelete: 'cascade' }),
  resetAt: timestamp('reset_at', { withTimezone: true }).notNull().defaultNow(),
  resetBy: text('reset_by').notNull(),
});

/**
 * A channel's rolling summary: what fell out of the context window, folded in by a
 * background job. `coveredUntil` is the creation time of the newest turn it covers.
 */
export const channelSummaries = pgTable('channel_summaries', {
  channelId: text('channel_id').primaryKey(),
  scopeId: text('scope_id')
    .notNull()
    .references(() => scopes.id, { onDelete: 'cascade' }),
  content: text('content').notNull(),
  coveredUntil: timestamp('covered_until', { withTimezone: true }).notNull(),
  coveredTurns: integer('covered_turns').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Per-channel overrides of the scope's persona and humanizer; null means "the server's". */
export const channelSettings = pgTable(
  'channel_settings',
  {
    channelId: text('channel_id').primaryKey(),
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    personaName: text('persona_name'),
    personaInstructions: text('persona_instructions'),
    humanizerDegree: smallint('humanizer_degree'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check(
      'channel_settings_humanizer_check',
      sql`${table.humanizerDegree} is null or ${table.humanizerDegree} between 0 and 3`,
    ),
    index('channel_settings_scope_idx').on(table.scopeId),
  ],
);

/** Remembered facts: about the server (owner null) or about one user (owner = that user). */
export const memories = pgTable(
  'memories',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['server', 'user'] }).notNull(),
    ownerId: text('owner_id'),
    /**
     * Set for what one character learned about the member (`owner_id`): that character's own
     * memory, seen only in its turns. Null: the bot's, seen in every turn of the scope.
     */
    characterId: uuid('character_id').references(() => characters.id, { onDelete: 'cascade' }),
    authorId: text('author_id').notNull(),
    content: text('content').notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    check(
      'memories_owner_check',
      sql`(${table.kind} = 'server' and ${table.ownerId} is null) or (${table.kind} = 'user' and ${table.ownerId} is not null)`,
    ),
    check('memories_character_check', sql`${table.characterId} is null or ${table.kind} = 'user'`),
    index('memories_scope_owner_idx').on(table.scopeId, table.kind, table.ownerId),
    index('memories_character_idx')
      .on(table.characterId)
      .where(sql`${table.characterId} is not null`),
  ],
);

/** One row per tool execution, for /history and audits. Summaries are capped, never secrets. */
export const toolCalls = pgTable(
  'tool_calls',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    turnId: uuid('turn_id')
      .notNull()
      .references(() => conversationTurns.id, { onDelete: 'cascade' }),
    scopeId: text('scope_id').notNull(),
    toolName: text('tool_name').notNull(),
    status: text('status', { enum: ['ok', 'error', 'timeout', 'aborted'] }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    argumentSummary: text('argument_summary').notNull().default(''),
    resultSummary: text('result_summary').notNull().default(''),
    createdAt: createdAt(),
  },
  (table) => [
    check('tool_calls_status_check', sql`${table.status} in ('ok', 'error', 'timeout', 'aborted')`),
    index('tool_calls_turn_idx').on(table.turnId),
  ],
);

export const REMINDER_STATUSES = ['pending', 'claimed', 'delivered', 'failed'] as const;
export type ReminderStatus = (typeof REMINDER_STATUSES)[number];

/**
 * Reminders set with the `set_reminder` tool, delivered by the reminder scheduler. A process
 * claims a due row (status `claimed`, its own claim token) before delivering it, so two
 * processes never deliver the same reminder; a claim left by a dead process expires.
 */
export const reminders = pgTable(
  'reminders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    channelId: text('channel_id').notNull(),
    /** The member who asked; a reminder is only ever for its author. */
    userId: text('user_id').notNull(),
    /** The message that asked for it, so the delivery can reply to it. */
    messageId: text('message_id').notNull(),
    content: text('content').notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    status: text('status', { enum: REMINDER_STATUSES }).notNull().default('pending'),
    claimToken: uuid('claim_token'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: createdAt(),
  },
  (table) => [
    check(
      'reminders_status_check',
      sql`${table.status} in ('pending', 'claimed', 'delivered', 'failed')`,
    ),
    index('reminders_due_idx')
      .on(table.dueAt)
      .where(sql`${table.status} in ('pending', 'claimed')`),
    index('reminders_owner_idx').on(table.scopeId, table.userId),
  ],
);

/**
 * "This process answers this message" (or this Retry press): unique per key, so two processes
 * connected to the same gateway shard never both reply.
 */
/**
 * The right to answer a message (or a Retry press, or an interaction), one process at a time.
 * For member messages it is also the ledger of the promise that each is answered: `settledAt`
 * stays empty until the member has seen the outcome (a reply, a notice, a stop), so a claim
 * of a process that died — or one handed back at shutdown (`instanceId` RELEASED_CLAIM) — is
 * found and answered after a restart.
 */
export const messageClaims = pgTable(
  'message_claims',
  {
    key: text('key').primaryKey(),
    instanceId: text('instance_id').notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true }).notNull().defaultNow(),
    /** The message's channel (member messages only), to fetch it again after a restart. */
    channelId: text('channel_id'),
    settledAt: timestamp('settled_at', { withTimezone: true }),
    /** The claiming attempt (its retries through an outage share it): see `claimMessage`. */
    attempt: text('attempt'),
    /**
     * The message whose reply carried this one: a turn's request showed it to the model as
     * unanswered, recorded before the reply's first write. If that reply stands in the channel
     * after a crash, this message was answered (or told) in passing: see `carryClaims`.
     */
    carriedBy: text('carried_by'),
  },
  (table) => [
    index('message_claims_claimed_at_idx').on(table.claimedAt),
    index('message_claims_unsettled_idx')
      .on(table.claimedAt)
      .where(sql`${table.settledAt} is null and ${table.channelId} is not null`),
  ],
);

/**
 * Turns a member started, for the per-member rate limit shared by every process. Keyed by the
 * message (or `retry:<interaction id>`): processes that all hear one message count it once,
 * and all reach the same verdict (`counted` false: refused, it uses none of the allowance).
 * No foreign key: the limit is checked before the scope's row is known to exist.
 */
export const memberTurns = pgTable(
  'member_turns',
  {
    key: text('key').primaryKey(),
    scopeId: text('scope_id').notNull(),
    memberId: text('member_id').notNull(),
    takenAt: timestamp('taken_at', { withTimezone: true }).notNull(),
    counted: boolean('counted').notNull().default(true),
  },
  (table) => [index('member_turns_member_idx').on(table.scopeId, table.memberId, table.takenAt)],
);

/** Tokens and money a scope spent per UTC day, for the optional daily budgets. */
export const scopeDailyUsage = pgTable(
  'scope_daily_usage',
  {
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    /** Nano-dollars at the model's price when each call was made. */
    cost: bigint('cost', { mode: 'number' }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.scopeId, table.day] })],
);

/**
 * What each member's turns spent per UTC day and model: `/usage`, `/export` and the per-member
 * budgets. A turn counts for the member whose message it answered (the last of a coalesced
 * batch); `member_id` is empty for work no member asked for (rolling summaries). The cost is
 * fixed at the price of the day, so a later price change does not rewrite history.
 */
export const memberDailyUsage = pgTable(
  'member_daily_usage',
  {
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    memberId: text('member_id').notNull(),
    model: text('model').notNull(),
    turns: integer('turns').notNull().default(0),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    cachedInputTokens: bigint('cached_input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    cost: bigint('cost', { mode: 'number' }).notNull().default(0),
    /** Seconds of members' voice messages transcribed (a speech-to-text model's row). */
    speechSeconds: real('speech_seconds').notNull().default(0),
    /** Characters of replies spoken (a text-to-speech model's row). */
    speechCharacters: bigint('speech_characters', { mode: 'number' }).notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.scopeId, table.day, table.memberId, table.model] }),
    index('member_daily_usage_member_idx').on(table.scopeId, table.memberId, table.day),
  ],
);

/** Small facts the bot keeps about itself, e.g. the hash of the slash commands it registered. */
export const botState = pgTable('bot_state', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A server's characters: personas with their own name and avatar that members address in its
 * channels and that speak through the channel's webhook. `name_key` is the folded name, unique
 * in a scope and what addressing compares.
 */
export const characters = pgTable(
  'characters',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nameKey: text('name_key').notNull(),
    avatarUrl: text('avatar_url'),
    /** Who the character is and how it speaks: model input, never the bot's own rules. */
    persona: text('persona').notNull(),
    greeting: text('greeting'),
    triggerWords: text('trigger_words')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    provider: text('provider', { enum: ['google', 'openai', 'anthropic'] }),
    model: text('model'),
    temperature: real('temperature'),
    humanizerDegree: smallint('humanizer_degree'),
    language: text('language'),
    /** An imported card's other fields (scenario, examples, tags, creator …), kept for export. */
    card: jsonb('card').$type<Record<string, unknown>>(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('characters_scope_name_idx').on(table.scopeId, table.nameKey),
    check(
      'characters_humanizer_check',
      sql`${table.humanizerDegree} is null or ${table.humanizerDegree} between 0 and 3`,
    ),
    check(
      'characters_temperature_check',
      sql`${table.temperature} is null or ${table.temperature} between 0 and 2`,
    ),
  ],
);

/** Who is on stage in a channel or thread, in the order they take turns. */
export const sceneCharacters = pgTable(
  'scene_characters',
  {
    channelId: text('channel_id').notNull(),
    characterId: uuid('character_id')
      .notNull()
      .references(() => characters.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.channelId, table.characterId] }),
    index('scene_characters_character_idx').on(table.characterId),
  ],
);

/**
 * Which character wrote a webhook message, so a member's reply to it addresses that character
 * (a webhook message cannot be replied to as a user's can), and which member message its turn
 * answered: a webhook message carries no reply reference, so after a restart this is how a
 * character's reply standing in the channel is told from an unanswered message (recovery/).
 */
export const characterMessages = pgTable(
  'character_messages',
  {
    messageId: text('message_id').primaryKey(),
    channelId: text('channel_id').notNull(),
    characterId: uuid('character_id')
      .notNull()
      .references(() => characters.id, { onDelete: 'cascade' }),
    /** The member message the turn answered; null for a scene's greeting (no member asked). */
    triggerMessageId: text('trigger_message_id'),
    createdAt: createdAt(),
  },
  (table) => [
    index('character_messages_character_idx').on(table.characterId),
    index('character_messages_trigger_idx').on(table.triggerMessageId),
  ],
);

/** What each character's turns spent per UTC day: `/usage` by character. */
export const characterDailyUsage = pgTable(
  'character_daily_usage',
  {
    scopeId: text('scope_id')
      .notNull()
      .references(() => scopes.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    characterId: uuid('character_id')
      .notNull()
      .references(() => characters.id, { onDelete: 'cascade' }),
    turns: integer('turns').notNull().default(0),
    inputTokens: bigint('input_tokens', { mode: 'number' }).notNull().default(0),
    outputTokens: bigint('output_tokens', { mode: 'number' }).notNull().default(0),
    cost: bigint('cost', { mode: 'number' }).notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.scopeId, table.day, table.characterId] }),
    index('character_daily_usage_character_idx').on(table.characterId),
  ],
);
