import { z } from 'zod';
import type { Clock } from '../../core/clock.ts';
import { ToolError } from '../../core/errors.ts';
import type { Database } from '../../db/database.ts';
import type { ToolContext } from '../../core/tool.ts';
import { createReminder } from '../../db/reminder-repository.ts';
import { defineTool, type ToolDefinition } from '../tool-definition.ts';
import { actingMember, MEMBER_ARGUMENT_DESCRIPTION } from './acting-member.ts';
import { scopeOfContext } from './context-scope.ts';
import { DEFAULT_TIME_ZONE } from './current-time-tool.ts';
import { whoseTimeZone } from './time-zone-owner.ts';
import { formatZoned, isValidTimeZone, zonedLocalToEpoch } from './zoned-time.ts';

export interface ReminderLimits {
  /** Undelivered reminders one member may have in a scope. */
  pendingPerMember: number;
  /** How far ahead a reminder may be set. */
  maxDelayDays: number;
  maxMessageChars: number;
}

export const REMINDER_LIMITS: ReminderLimits = {
  pendingPerMember: 25,
  maxDelayDays: 365,
  maxMessageChars: 500,
};

const MINUTE = 60_000;
const LOCAL_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * set_reminder: stores a reminder for the author of the message being answered (never anyone
 * else), to be posted in this channel by the reminder scheduler.
 */
export function createSetReminderTool(options: {
  db: Database;
  clock: Clock;
  limits?: Partial<ReminderLimits> | undefined;
  /** Told about every new reminder so a sleeping scheduler can wake for an early one. */
  onReminderCreated?: ((dueAt: Date) => void) | undefined;
}): ToolDefinition {
  const limits = { ...REMINDER_LIMITS, ...options.limits };
  return defineTool({
    name: 'set_reminder',
    description: (context) =>
      `Remind the person you are answering of something later, in this channel. Give either inMinutes or at (a local date-time in ${whoseTimeZone(context)}, e.g. "2026-03-01T09:00", or with an offset).`,
    input: reminderInput(limits),
    availability: { enabledByDefault: true },
    async execute(input, { context }) {
      const scope = scopeOfContext(context);
      const member = actingMember(context, input.member);
      const now = options.clock.now();
      const timeZone = scopeTimeZone(context);
      const dueAt = dueTimeOf(input, { now, timeZone, limits });
      const result = await createReminder(options.db, {
        scope,
        channelId: context.channelId,
        userId: member.id,
        messageId: context.messageId,
        content: input.message.replace(/\s+/g, ' '),
        dueAt: new Date(dueAt),
        limit: limits.pendingPerMember,
      });
      if (result.status === 'full') {
        throw new ToolError(
          'reminder_full',
          `Not set: the person you are answering already has ${result.limit} pending reminders, the most allowed.`,
        );
      }
      options.onReminderCreated?.(result.reminder.dueAt);
      const due = formatZoned(dueAt, timeZone);
      return `Reminder set for ${due.readable} ${timeZone} (${due.iso}), in ${describeDelay(dueAt - now)}. It will be posted in this channel.`;
    },
  });
}

/** The scope's time zone; UTC when none is set or the one set is unknown. */
function scopeTimeZone(context: ToolContext): string {
  return context.timeZone !== undefined && isValidTimeZone(context.timeZone)
    ? context.timeZone
    : DEFAULT_TIME_ZONE;
}

/** What the model gives: the text, and when as either minutes from now or a date-time. */
function reminderInput(limits: ReminderLimits) {
  return z
    .strictObject({
      message: z
        .string()
        .trim()
        .min(1)
        .max(limits.maxMessageChars)
        .describe('What to remind them of.'),
      inMinutes: z
        .number()
        .int()
        .min(1)
        .max(limits.maxDelayDays * 24 * 60)
        .optional()
        .describe('Minutes from now.'),
      at: z
        .string()
        .regex(LOCAL_DATE_TIME, 'must look like 2026-03-01T09:00 (optionally with an offset)')
        .optional()
        .describe('Date-time, ISO 8601.'),
      member: z.string().max(100).optional().describe(MEMBER_ARGUMENT_DESCRIPTION),
    })
    .refine((input) => (input.inMinutes === undefined) !== (input.at === undefined), {
      message: 'give exactly one of inMinutes or at',
    });
}

/** When the reminder is due (epoch ms): in the future, and not past the furthest allowed. */
function dueTimeOf(
  input: { inMinutes?: number | undefined; at?: string | undefined },
  options: { now: number; timeZone: string; limits: ReminderLimits },
): number {
  const { now, timeZone, limits } = options;
  const dueAt =
    input.inMinutes !== undefined
      ? now + input.inMinutes * MINUTE
      : parseAt(input.at ?? '', timeZone);
  if (dueAt <= now) {
    const current = formatZoned(now, timeZone);
    throw new ToolError(
      'reminder_past',
      `That time has already passed: it is now ${current.iso} in ${timeZone}.`,
    );
  }
  if (dueAt - now > limits.maxDelayDays * 24 * 60 * MINUTE) {
    throw new ToolError(
      'reminder_too_far',
      `Reminders can be set at most ${limits.maxDelayDays} days ahead.`,
    );
  }
  return dueAt;
}

/** An ISO date-time; without an offset it is the wall-clock time of `timeZone`. */
function parseAt(text: string, timeZone: string): number {
  const match = LOCAL_DATE_TIME.exec(text);
  if (match === null) throw new ToolError('reminder_time', 'The time could not be read.');
  const [, year, month, day, hour, minute, second, offset] = match;
  const local = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second ?? 0),
  };
  if (local.month < 1 || local.month > 12 || local.day < 1 || local.day > 31 || local.hour > 23) {
    throw new ToolError('reminder_time', `"${text}" is not a valid date-time.`);
  }
  if (offset === undefined) return zonedLocalToEpoch(local, timeZone);
  const epoch = Date.parse(
    `${year}-${month}-${day}T${hour}:${minute}:${second ?? '00'}${normalizeOffset(offset)}`,
  );
  if (Number.isNaN(epoch))
    throw new ToolError('reminder_time', `"${text}" is not a valid date-time.`);
  return epoch;
}

function normalizeOffset(offset: string): string {
  return offset === 'Z' || offset.includes(':')
    ? offset
    : `${offset.slice(0, 3)}:${offset.slice(3)}`;
}

function describeDelay(milliseconds: number): string {
  const minutes = Math.round(milliseconds / MINUTE);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `about ${hours} hours`;
  return `about ${Math.round(hours / 24)} days`;
}
