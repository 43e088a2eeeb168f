/**
 * The one error hierarchy of the bot. Every error carries a stable string `code` and an optional
 * `cause`; callers branch on classes and codes, never on message text.
 */
export class BotError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A configuration problem: one entry per bad or missing key. */
export class ConfigError extends BotError {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super('config', problems.join('\n'));
    this.problems = problems;
  }
}

/**
 * The classes a provider failure is sorted into, once, at the adapter.
 * `quota` is a billing/credit exhaustion (not retryable), distinct from a transient `rate_limit`.
 */
export type ProviderErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'quota'
  | 'overloaded'
  | 'network'
  | 'timeout'
  | 'model'
  | 'context_overflow'
  | 'content_filter'
  | 'bad_request'
  | 'unknown';

const RETRYABLE_KINDS: ReadonlySet<ProviderErrorKind> = new Set([
  'rate_limit',
  'overloaded',
  'network',
  'timeout',
]);

export interface ProviderErrorOptions {
  kind: ProviderErrorKind;
  message: string;
  /** Defaults to the kind's usual retryability. */
  retryable?: boolean;
  retryAfterMs?: number | undefined;
  status?: number | undefined;
  provider?: string | undefined;
  cause?: unknown;
}

/** A classified model-provider failure. The message is for logs; users see a mapped, localized text. */
export class ProviderError extends BotError {
  readonly kind: ProviderErrorKind;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;
  readonly provider: string | undefined;

  constructor(options: ProviderErrorOptions) {
    super(`provider_${options.kind}`, options.message, { cause: options.cause });
    this.kind = options.kind;
    this.retryable = options.retryable ?? RETRYABLE_KINDS.has(options.kind);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
    this.provider = options.provider;
  }
}

/** A tool failed in a way the model should read as a result, not as a crash. */
export class ToolError extends BotError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(`tool_${code}`, message, options);
  }
}

/** A problem with a localized message key meant for the member who caused it. */
export class UserFacingError extends BotError {
  readonly messageKey: string;
  readonly params: Readonly<Record<string, string | number>>;
  /** Whether asking again can help (the notice then offers a Retry button). */
  readonly retryable: boolean;

  constructor(
    messageKey: string,
    params: Record<string, string | number> = {},
    options?: { cause?: unknown; retryable?: boolean },
  ) {
    super(`user_${messageKey}`, messageKey, options);
    this.messageKey = messageKey;
    this.params = params;
    this.retryable = options?.retryable ?? false;
  }
}

/** Which request of the chat platform failed, as far as it is known. */
export interface DeliveryRequest {
  /** The method and route template, e.g. `POST /channels/:id/messages`. */
  route?: string | undefined;
  /** The HTTP status the platform answered; none when no answer came. */
  status?: number | undefined;
  channelId?: string | undefined;
  /** The message edited or deleted, or replied to by a create. */
  messageId?: string | undefined;
}

export interface DeliveryErrorOptions extends DeliveryRequest {
  cause?: unknown;
  retryable?: boolean;
}

/** Sending or editing a message on the chat platform failed; it carries the request it was. */
export class DeliveryError extends BotError {
  readonly retryable: boolean;
  readonly route: string | undefined;
  readonly status: number | undefined;
  readonly channelId: string | undefined;
  readonly messageId: string | undefined;

  constructor(code: string, message: string, options: DeliveryErrorOptions = {}) {
    super(`delivery_${code}`, message, 'cause' in options ? { cause: options.cause } : undefined);
    this.retryable = options.retryable ?? false;
    this.route = options.route;
    this.status = options.status;
    this.channelId = options.channelId;
    this.messageId = options.messageId;
  }

  /** The request this error is about, to carry it over to an error that wraps it. */
  get request(): DeliveryRequest {
    return {
      route: this.route,
      status: this.status,
      channelId: this.channelId,
      messageId: this.messageId,
    };
  }
}

/** Stored-secret encryption or decryption failed (wrong key, tampered data, unknown format). */
export class SecretError extends BotError {
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(`secret_${code}`, message, options);
  }
}

/** True when the value is an AbortError raised because a signal was aborted. */
export function isAbortError(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError')
  );
}
