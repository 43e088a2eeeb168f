import { z } from 'zod';
import type { Clock } from '../../core/clock.ts';
import { defineTool, type ToolDefinition } from '../tool-definition.ts';
import { whoseTimeZone } from './time-zone-owner.ts';
import { formatZoned, isValidTimeZone } from './zoned-time.ts';

export const DEFAULT_TIME_ZONE = 'UTC';

/** current_time: the date and time in the scope's time zone (or one the model names). */
export function createCurrentTimeTool(options: { clock: Clock }): ToolDefinition {
  return defineTool({
    name: 'current_time',
    description: (context) =>
      `Get the current date and time. Without arguments it uses ${whoseTimeZone(context)}; pass an IANA time zone (e.g. "Asia/Tokyo") for another place.`,
    input: z.strictObject({
      timeZone: z
        .string()
        .refine(isValidTimeZone, 'must be an IANA time zone such as "Europe/Paris"')
        .optional()
        .describe('IANA time zone name, e.g. "America/New_York".'),
    }),
    availability: { enabledByDefault: true },
    execute(input, { context }) {
      const configured = context.timeZone;
      const fallback = configured !== undefined && !isValidTimeZone(configured);
      const timeZone =
        input.timeZone ?? (configured === undefined || fallback ? DEFAULT_TIME_ZONE : configured);
      const time = formatZoned(options.clock.now(), timeZone);
      const note =
        fallback && input.timeZone === undefined
          ? ` (the configured time zone "${configured}" is unknown; showing UTC)`
          : '';
      return `${time.readable} in ${timeZone} (UTC${time.offset})${note}. ISO 8601: ${time.iso}`;
    },
  });
}
