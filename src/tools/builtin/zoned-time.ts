/** Time-zone arithmetic on Intl alone (no time-zone library): formatting and local → instant. */

export interface ZonedTime {
  /** `2026-01-15T13:00:00+01:00` */
  iso: string;
  /** `Thursday, January 15, 2026, 13:00` */
  readable: string;
  /** `+01:00` */
  offset: string;
}

/** True when Intl knows the IANA zone name. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

export function formatZoned(epochMs: number, timeZone: string): ZonedTime {
  const parts = partsOf(epochMs, timeZone);
  const offset = offsetText(offsetMinutes(epochMs, timeZone));
  const readable = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'long',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(epochMs);
  const iso = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`;
  return { iso, readable, offset };
}

/** The instant at which the wall clock of `timeZone` shows the given local date-time. */
export function zonedLocalToEpoch(local: LocalDateTime, timeZone: string): number {
  const asUtc = Date.UTC(
    local.year,
    local.month - 1,
    local.day,
    local.hour,
    local.minute,
    local.second,
  );
  // Two passes settle the offset on either side of a daylight-saving change.
  const first = asUtc - offsetMinutes(asUtc, timeZone) * 60_000;
  return asUtc - offsetMinutes(first, timeZone) * 60_000;
}

export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Minutes east of UTC in `timeZone` at `epochMs`. */
export function offsetMinutes(epochMs: number, timeZone: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(epochMs)
    .find((part) => part.type === 'timeZoneName')?.value;
  const match = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name ?? '');
  if (match === null) return 0; // "GMT": UTC itself
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

function partsOf(epochMs: number, timeZone: string): Record<string, string> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(epochMs);
  return Object.fromEntries(parts.map((part) => [part.type, part.value]));
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
