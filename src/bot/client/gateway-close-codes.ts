import { GatewayCloseCodes } from 'discord.js';

/** What discord.js does after a gateway connection closed with a code. */
export type CloseOutcome = 'resume' | 'reconnect' | 'fatal';

/** discord.js's own code for a connection it closes to resume (a zombie, op 7 RECONNECT). */
const RESUMING = 4200;
const NORMAL = 1000;

/**
 * The closes after which discord.js stops for good: only the operator can fix them, so the
 * process says what to fix and exits (a deaf process that looks healthy helps nobody).
 */
const FATAL_ADVICE = new Map<number, string>([
  [
    GatewayCloseCodes.AuthenticationFailed,
    'Discord rejected DISCORD_TOKEN (gateway close 4004): the token was reset or is wrong — copy a new one from the developer portal (your application → Bot → Reset Token) into DISCORD_TOKEN and start again',
  ],
  [
    GatewayCloseCodes.InvalidShard,
    'Discord refused the shard (gateway close 4010): check the shard settings and start again',
  ],
  [
    GatewayCloseCodes.ShardingRequired,
    'Discord requires sharding for this bot (gateway close 4011): it is in too many servers for one connection',
  ],
  [
    GatewayCloseCodes.InvalidAPIVersion,
    'Discord refused the gateway API version (gateway close 4012): update the bot (git pull && npm ci) and start again',
  ],
  [
    GatewayCloseCodes.InvalidIntents,
    'Discord refused the requested gateway intents as invalid (gateway close 4013): update the bot and start again',
  ],
  [
    GatewayCloseCodes.DisallowedIntents,
    'Discord refused the privileged "Message Content" intent (gateway close 4014, "Used disallowed intents"): switch on Message Content Intent in the developer portal (your application → Bot → Privileged Gateway Intents), save, and start the bot again',
  ],
]);

/** The code discord.js closes with to resume, and codes after which Discord keeps the session. */
const RESUMABLE = new Set<number>([
  RESUMING,
  GatewayCloseCodes.UnknownError,
  GatewayCloseCodes.UnknownOpcode,
  GatewayCloseCodes.DecodeError,
  GatewayCloseCodes.SessionTimedOut,
]);

/** discord.js's reaction to a close code (its `onClose`), for the log line. */
export function closeOutcome(code: number): CloseOutcome {
  if (FATAL_ADVICE.has(code)) return 'fatal';
  if (code === NORMAL || (code >= 4001 && code <= 4999 && !RESUMABLE.has(code))) {
    return 'reconnect';
  }
  return 'resume';
}

/** The one line that tells the operator what to fix, for a fatal close; undefined otherwise. */
export function fatalCloseAdvice(code: number): string | undefined {
  return FATAL_ADVICE.get(code);
}
