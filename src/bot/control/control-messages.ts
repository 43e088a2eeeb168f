import { z } from 'zod';

/**
 * The control messages the bot processes send each other over the ControlBus, each checked
 * with zod on receipt (another version of the bot, or anyone who can NOTIFY, may send them).
 * One database channel carries every topic; the Discord channel is in the payload: a process
 * needs no LISTEN per channel (no round trip when a turn starts, no stop lost before it).
 *
 * Forward compatible, for a rolling deploy where an older process hears a newer one: fields
 * this version does not know are dropped (zod's default for objects: never `.strict()`), an
 * enum value it does not know takes the meaning given by {@link knownOr}, and a topic nobody
 * here subscribes to is ignored by the bus (logged at debug). Only what this version cannot
 * act on at all (no channel id, a wrong type) is malformed.
 */
export const CONTROL_TOPICS = {
  /** Stop the live turn of a Discord channel (`/stop`, `/reset`, the Stop button, a stop said there). */
  stop: 'stop',
  /** What became of a stop, from the process that streams the turn. */
  stopResult: 'stop.result',
  /** A scope's settings were written: cached copies older than `version` are stale. */
  settings: 'settings',
  /** A channel's own settings (persona, humanizer) were written. */
  channelSettings: 'channel-settings',
  /** Tokens were added to a scope's daily usage. */
  usage: 'usage',
  /** Who is on a channel's stage changed (`/scene`), or, without a channel, any character. */
  scene: 'scene',
} as const;

const snowflake = z.string().regex(/^\d{1,25}$/);

/** Longest enum value accepted from another version (a value past it is malformed). */
const ENUM_VALUE_MAX_CHARACTERS = 100;

/**
 * One of `values`, or `fallback` for a value a newer version added: its safe meaning here.
 * Still a string: a number or a missing required field is malformed.
 */
function knownOr<const Values extends readonly [string, ...string[]]>(
  values: Values,
  fallback: Values[number],
) {
  const known = new Set<string>(values);
  return z
    .string()
    .max(ENUM_VALUE_MAX_CHARACTERS)
    .transform((value): Values[number] => (known.has(value) ? value : fallback));
}

/** Words of a stop said in a channel: short by nature (a longer message is never a stop). */
export const STOP_MESSAGE_MAX_CHARACTERS = 500;

export const stopMessageSchema = z.object({
  requestId: z.string().min(1).max(64),
  /** The instance that asks; it has already tried its own turns. */
  origin: z.string().min(1).max(100),
  /**
   * Who asked, for the logs: every kind follows the same rule (the member answered, or a
   * moderator). A kind a newer version added is a `command` here: a stop without words.
   */
  by: knownOr(['command', 'reset', 'message', 'button'], 'command'),
  channelId: snowflake,
  authorId: snowflake,
  authorIsModerator: z.boolean(),
  /** For the Stop button: only this turn (a press on an ended reply stops nothing). */
  turnId: z.string().min(1).max(100).optional(),
  /** For a stop said in the channel: the message, judged by the streaming process's registry. */
  message: z
    .object({
      messageId: snowflake,
      authorName: z.string().max(100),
      content: z.string().max(STOP_MESSAGE_MAX_CHARACTERS),
      addressForms: z.array(z.string().max(100)).max(20),
    })
    .optional(),
});
export type StopMessage = z.infer<typeof stopMessageSchema>;

export const stopResultSchema = z.object({
  requestId: z.string().min(1).max(64),
  origin: z.string().min(1).max(100),
  stopped: z.boolean(),
  /**
   * Why it did not stop. A reason a newer version added is `already-stopping` here: a live
   * turn was found and left alone, and the asker neither claims it stopped nor that nothing
   * was live (the meaning the asker gave a missing reason before).
   */
  reason: knownOr(
    ['no-live-turn', 'not-requester', 'not-a-stop', 'already-stopping'],
    'already-stopping',
  ).optional(),
  turnId: z.string().max(100).optional(),
});
export type StopResult = z.infer<typeof stopResultSchema>;

export const settingsChangedSchema = z.object({
  origin: z.string().min(1).max(100),
  scopeId: snowflake,
  version: z.number().int().nonnegative(),
});

export const channelSettingsChangedSchema = z.object({
  origin: z.string().min(1).max(100),
  channelId: snowflake,
});

export const usageAddedSchema = z.object({
  origin: z.string().min(1).max(100),
  scopeId: snowflake,
});

export const sceneChangedSchema = z.object({
  origin: z.string().min(1).max(100),
  /** Absent: a character changed, so every scene it may be in is stale. */
  channelId: snowflake.optional(),
});
