import { randomBytes } from 'node:crypto';
import {
  BotError,
  DeliveryError,
  ProviderError,
  SecretError,
  UserFacingError,
  type ProviderErrorKind,
} from '../../core/errors.ts';
import type { Locale } from './locale.ts';
import { formatCount, formatMoney, formatWait } from './money.ts';
import { isMessageKey, translate, type MessageKey } from './messages.ts';

/**
 * The bot's one voice to members. Every error and every refusal becomes member text here, and
 * only here: short, in the member's language (en, ja), never a stack, a provider's body or a
 * key. Failures carry an incident id that is logged with the error; refusals do not (nothing
 * failed). The texts themselves are in messages.ts; a command may word its own refusals
 * (`{ kind: 'command' }`, from its catalogue), but what is refused is decided here.
 */

/** Why the bot will not do what a member asked: a notice, a refused press or command. */
export type Refusal =
  | { kind: 'member_rate_limited'; seconds: number }
  | { kind: 'queue_full' }
  /**
   * A daily budget is spent: the server's or the member's own, what was spent of it today
   * (tokens, nano-dollars) and how long until it resets at 00:00 UTC.
   */
  | {
      kind: 'budget_exhausted';
      who: 'server' | 'member';
      spentTokens: number;
      spentCost: number;
      resetsInMs: number;
    }
  | { kind: 'storage_trouble' }
  | { kind: 'channel_unsupported' }
  | { kind: 'retry_not_yours' }
  | { kind: 'retry_expired' }
  | { kind: 'retry_busy' }
  | { kind: 'cooldown'; seconds: number }
  /** `permission`: its name as Discord's client shows it, per language. */
  | { kind: 'missing_permission'; permission: Readonly<Record<Locale, string>> }
  | { kind: 'guild_only' }
  | { kind: 'settings_conflict' }
  | { kind: 'unknown_command' }
  /** The scope's stored API key cannot be opened (another encryption key or provider). */
  | { kind: 'stored_key_unusable'; error: SecretError }
  /** A command's own wording, from its catalogue (command-text.ts). */
  | { kind: 'command'; wording: (locale: Locale) => string };

export type RefusalKind = Refusal['kind'];
/**
 * A command's refusal or input problem: the router shows it to the invoker ephemerally, worded
 * by the one voice (member-text.ts), with no incident id (it is not a failure of the bot).
 */
export class CommandRefusal extends BotError {
  readonly refusal: Refusal;

  constructor(refusal: Refusal) {
    super('command_refusal', `refused: ${refusal.kind}`);
    this.refusal = refusal;
  }
}

/** What `/stop` and the Stop button answer: the stop, or why there was none. */
export type StopAnswer =
  | 'stopped'
  | 'unconfirmed'
  | 'not-requester'
  | 'already-stopping'
  | 'no-live-turn'
  /** A press on a reply that has already ended. */
  | 'finished';

export interface MemberFailure {
  /** Short id shown to members and logged with the full error, to find one from the other. */
  incidentId: string;
  text: string;
  /** Whether offering a Retry button makes sense. */
  retryable: boolean;
}

export function newIncidentId(): string {
  return randomBytes(4).toString('hex');
}

/** A turn's failure, for its failure notice: what happened, the incident id, whether to retry. */
export function describeFailure(error: unknown, locale: Locale): MemberFailure {
  const incidentId = newIncidentId();
  const { key, params, retryable } = failureOf(error);
  return {
    incidentId,
    text: withIncident(translate(locale, key, params), locale, incidentId),
    retryable,
  };
}

/**
 * What a command's failure tells its invoker: a refusal in its own words, anything else "this
 * command failed" with an incident id (log the error with it).
 */
export function describeCommandError(
  error: unknown,
  locale: Locale,
): { text: string; incidentId: string | undefined } {
  if (error instanceof CommandRefusal) {
    return { text: refusalText(error.refusal, locale), incidentId: undefined };
  }
  const incidentId = newIncidentId();
  return {
    text: withIncident(translate(locale, 'command.failed'), locale, incidentId),
    incidentId,
  };
}

/** A refusal in the member's language. */
export function refusalText(refusal: Refusal, locale: Locale): string {
  switch (refusal.kind) {
    case 'member_rate_limited':
      return translate(locale, 'note.member_rate_limited', { seconds: refusal.seconds });
    case 'cooldown':
      return translate(locale, 'command.cooldown', { seconds: refusal.seconds });
    case 'missing_permission':
      return translate(locale, 'command.missing_permission', {
        permission: refusal.permission[locale],
      });
    case 'stored_key_unusable':
      return translate(locale, secretErrorKey(refusal.error));
    case 'command':
      return refusal.wording(locale);
    case 'budget_exhausted':
      return translate(
        locale,
        refusal.who === 'server' ? 'note.budget_exhausted' : 'note.member_budget_exhausted',
        {
          cost: formatMoney(refusal.spentCost, locale),
          tokens: formatCount(refusal.spentTokens, locale),
          wait: formatWait(refusal.resetsInMs, locale),
        },
      );
    case 'queue_full':
    case 'storage_trouble':
    case 'channel_unsupported':
    case 'retry_not_yours':
    case 'retry_expired':
    case 'retry_busy':
    case 'guild_only':
    case 'settings_conflict':
    case 'unknown_command':
      return translate(locale, REFUSAL_KEYS[refusal.kind]);
  }
}

/** The refusals whose text takes no parameter. */
const REFUSAL_KEYS = {
  queue_full: 'note.queue_full',
  storage_trouble: 'note.storage_trouble',
  channel_unsupported: 'note.channel_unsupported',
  retry_not_yours: 'note.retry_not_yours',
  retry_expired: 'note.retry_expired',
  retry_busy: 'note.retry_busy',
  guild_only: 'command.guild_only',
  settings_conflict: 'command.conflict',
  unknown_command: 'command.unknown',
} as const satisfies Partial<Record<RefusalKind, MessageKey>>;

const STOP_ANSWER_KEYS = {
  stopped: 'stop.stopped',
  unconfirmed: 'stop.unconfirmed',
  'not-requester': 'stop.not_requester',
  'already-stopping': 'stop.already_stopping',
  'no-live-turn': 'stop.no_live_turn',
  finished: 'note.stop_finished',
} as const satisfies Record<StopAnswer, MessageKey>;

/** What a stop answers its member, for `/stop` and the Stop button alike. */
export function stopAnswerText(answer: StopAnswer, locale: Locale): string {
  return translate(locale, STOP_ANSWER_KEYS[answer]);
}

/**
 * No key at all for the provider (the factory's refusal, which has no HTTP status) reads "not
 * set up yet", not "your key was rejected"; there is nothing to retry until an admin adds one.
 */
export function notConfigured(error: unknown): unknown {
  if (error instanceof ProviderError && error.kind === 'auth' && error.status === undefined) {
    return new UserFacingError('error.not_configured', {}, { cause: error });
  }
  return error;
}

/** A provider's failure in a check (`/config apikey`, `/config model`): a failed reply's words. */
export function providerFailureText(kind: ProviderErrorKind, locale: Locale): string {
  return translate(locale, providerErrorKey(kind));
}

function withIncident(text: string, locale: Locale, incidentId: string): string {
  return `${text}\n-# ${translate(locale, 'error.incident', { incident: incidentId })}`;
}

function providerErrorKey(kind: ProviderErrorKind): MessageKey {
  const key = `error.${kind}`;
  return isMessageKey(key) ? key : 'error.unknown';
}

/** A stored key that cannot be used: another encryption key, or another provider's key. */
function secretErrorKey(error: SecretError): MessageKey {
  return error.code === 'secret_wrong_provider'
    ? 'error.secret_wrong_provider'
    : 'error.secret_unreadable';
}

function failureOf(error: unknown): {
  key: MessageKey;
  params: Readonly<Record<string, string | number>>;
  retryable: boolean;
} {
  if (error instanceof ProviderError) {
    // Auth/quota/model need an admin; a Retry after the fix is still useful, so keep it.
    return {
      key: providerErrorKey(error.kind),
      params: {},
      retryable: error.kind !== 'content_filter',
    };
  }
  if (error instanceof DeliveryError && error.code === 'delivery_write_failed') {
    return { key: 'error.delivery', params: {}, retryable: true };
  }
  if (error instanceof SecretError)
    return { key: secretErrorKey(error), params: {}, retryable: true };
  if (error instanceof UserFacingError && isMessageKey(error.messageKey)) {
    return { key: error.messageKey, params: error.params, retryable: error.retryable };
  }
  return { key: 'error.unknown', params: {}, retryable: true };
}
