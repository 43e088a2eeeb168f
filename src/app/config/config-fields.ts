import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The environment fields more than one configuration reads (the bot's, the REST proxy's, the
 * sharding settings): each value trimmed, empty meaning unset, checked with one message that
 * names what a good value looks like.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

export const optionalUrl = (protocols: readonly string[]) =>
  optionalText.refine(
    (value) => value === undefined || hasProtocol(value, protocols),
    `must be a URL starting with ${protocols.map((protocol) => `${protocol}//`).join(' or ')}`,
  );

/** A switch: `on` or `off` (unset: the setting's default). */
export const onOffSetting = (name: string) =>
  optionalText.refine(
    (value) => value === undefined || value === 'on' || value === 'off',
    `${name} must be on or off`,
  );

export const logLevelSetting = optionalText.refine(
  (value) => value === undefined || (LOG_LEVELS as readonly string[]).includes(value),
  `must be one of ${LOG_LEVELS.join(', ')}`,
);

export const logFormatSetting = optionalText.refine(
  (value) => value === undefined || (LOG_FORMATS as readonly string[]).includes(value),
  `must be one of ${LOG_FORMATS.join(', ')}`,
);

export const portSetting = optionalText.refine(
  (value) => value === undefined || isPort(value),
  'must be a port number between 0 (any free port) and 65535',
);

export const hostSetting = optionalText.refine(
  (value) => value === undefined || isHost(value),
  'must be an IP address or host name to bind to, e.g. 127.0.0.1 or 0.0.0.0',
);

export function isPort(value: string): boolean {
  const port = Number(value);
  return /^\d+$/.test(value) && port >= 0 && port <= 65_535;
}

export function isHost(value: string): boolean {
  return isIP(value) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(value);
}

function hasProtocol(value: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** Settings whose value is a secret or may hold one (a password in a URL): never echoed. */
const SECRET_SETTING = /TOKEN|KEY|PASSWORD|SECRET|DATABASE_URL/;
/** Longer bad values are cut in the message: enough to recognise, not a wall of text. */
const ECHO_LIMIT = 60;

/**
 * One line per bad setting: its name, what a good value looks like and — unless it may be a
 * secret — the value it had, so a typo is seen in the line (`must be one of …, got openia`).
 */
export function describeIssues(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  environment: Readonly<Record<string, string | undefined>>,
): string[] {
  return issues.map((issue) => {
    const key = issue.path.map(String).join('.');
    const value = environment[key]?.trim();
    if (value === undefined || value === '' || SECRET_SETTING.test(key)) {
      return `${key} ${issue.message}`;
    }
    const shown = value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}…` : value;
    return `${key} ${issue.message}, got ${/^[\w.:/@+-]+$/.test(shown) ? shown : JSON.stringify(shown)}`;
  });
}
