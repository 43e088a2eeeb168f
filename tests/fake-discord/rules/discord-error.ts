import { RESTJSONErrorCodes } from 'discord-api-types/v10';

/** One leaf of Discord's nested `errors` object: `{ code: 'BASE_TYPE_MAX_LENGTH', message }`. */
export interface FieldError {
  code: string;
  message: string;
}

/** A field path such as `['embeds', 0, 'description']` and what is wrong with it. */
export interface FormProblem {
  path: readonly (string | number)[];
  error: FieldError;
}

/**
 * An error response exactly as Discord words it: HTTP status, JSON `code`, `message`, and for
 * 50035 the nested `errors` object (`{ content: { _errors: [...] } }`) that discord.js flattens
 * into its DiscordAPIError message.
 */
export class DiscordApiError extends Error {
  readonly status: number;
  readonly code: number;
  readonly errors: Record<string, unknown> | undefined;
  /** Extra headers (a 429 carries Retry-After and the bucket). */
  readonly headers: Record<string, string>;
  /** Extra body fields (a 429 carries retry_after and global). */
  readonly extraBody: Record<string, unknown>;

  constructor(options: {
    status: number;
    code: number;
    message: string;
    errors?: Record<string, unknown>;
    headers?: Record<string, string>;
    extraBody?: Record<string, unknown>;
  }) {
    super(options.message);
    this.name = 'DiscordApiError';
    this.status = options.status;
    this.code = options.code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extraBody = options.extraBody ?? {};
  }

  /** The JSON body Discord sends with this error. */
  body(): Record<string, unknown> {
    return {
      ...this.extraBody,
      message: this.message,
      code: this.code,
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
  }

  static invalidFormBody(problems: readonly FormProblem[]): DiscordApiError {
    return new DiscordApiError({
      status: 400,
      code: RESTJSONErrorCodes.InvalidFormBodyOrContentType,
      message: 'Invalid Form Body',
      errors: nestProblems(problems),
    });
  }

  static unknown(
    what: 'Channel' | 'Message' | 'Guild' | 'User' | 'Member' | 'Role' | 'Emoji' | 'Webhook',
  ): DiscordApiError {
    const codes = {
      Channel: RESTJSONErrorCodes.UnknownChannel,
      Message: RESTJSONErrorCodes.UnknownMessage,
      Guild: RESTJSONErrorCodes.UnknownGuild,
      User: RESTJSONErrorCodes.UnknownUser,
      Member: RESTJSONErrorCodes.UnknownMember,
      Role: RESTJSONErrorCodes.UnknownRole,
      Emoji: RESTJSONErrorCodes.UnknownEmoji,
      Webhook: RESTJSONErrorCodes.UnknownWebhook,
    } as const;
    return new DiscordApiError({ status: 404, code: codes[what], message: `Unknown ${what}` });
  }

  static missingAccess(): DiscordApiError {
    return new DiscordApiError({
      status: 403,
      code: RESTJSONErrorCodes.MissingAccess,
      message: 'Missing Access',
    });
  }

  static missingPermissions(): DiscordApiError {
    return new DiscordApiError({
      status: 403,
      code: RESTJSONErrorCodes.MissingPermissions,
      message: 'Missing Permissions',
    });
  }

  static emptyMessage(): DiscordApiError {
    return new DiscordApiError({
      status: 400,
      code: RESTJSONErrorCodes.CannotSendAnEmptyMessage,
      message: 'Cannot send an empty message',
    });
  }

  /** Discord's bare HTTP errors (`{"message": "404: Not Found", "code": 0}`). */
  static http(status: 401 | 404 | 405, text: string): DiscordApiError {
    return new DiscordApiError({ status, code: 0, message: `${status}: ${text}` });
  }
}

/** Turns flat problems into Discord's nested shape: numeric keys for array items, `_errors` leaves. */
export function nestProblems(problems: readonly FormProblem[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const problem of problems) {
    let node = root;
    for (const segment of problem.path) {
      const key = String(segment);
      const next = (node[key] ??= {}) as Record<string, unknown>;
      node = next;
    }
    const leaf = (node._errors ??= []) as FieldError[];
    leaf.push(problem.error);
  }
  return root;
}

export const FIELD_ERRORS = {
  maxLength: (limit: number): FieldError => ({
    code: 'BASE_TYPE_MAX_LENGTH',
    message: `Must be ${limit} or fewer in length.`,
  }),
  required: (): FieldError => ({ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }),
  badLength: (minimum: number, maximum: number): FieldError => ({
    code: 'BASE_TYPE_BAD_LENGTH',
    message: `Must be between ${minimum} and ${maximum} in length.`,
  }),
  invalidEnum: (value: unknown): FieldError => ({
    code: 'ENUM_TYPE_COERCE',
    message: `Value "${String(value)}" is not a valid enum value.`,
  }),
  wrongType: (expected: string): FieldError => ({
    code: `${expected.toUpperCase()}_TYPE_COERCE`,
    message: `Value is not a valid ${expected}.`,
  }),
} as const;
