/**
 * Short, secret-free summaries of a tool call for the `tool_calls` audit table. A call's
 * arguments may carry a URL with a token or a key the model was tricked into echoing; the audit
 * keeps enough to understand what happened and nothing that could be replayed.
 */

export const SUMMARY_MAX_CHARS = 300;

const REDACTED = '[redacted]';
const SECRET_KEY_NAME =
  /pass(word|wd)?|secret|token|api[-_]?key|authori[sz]ation|cookie|credential|private[-_]?key|signature/i;
const SECRET_PATTERNS: readonly RegExp[] = [
  // user:password@ in URLs
  /(?<=\/\/)[^/\s@]+:[^/\s@]*@/g,
  /\bBearer\s+[\w.~+/=-]+/gi,
  /\bsk-[\w-]{16,}/g,
  /\bAIza[\w-]{30,}/g,
  /\bgh[pousr]_\w{30,}/g,
  /\bxox[abprs]-[\w-]{10,}/g,
  // Discord bot tokens: three dot-separated base64url parts
  /[\w-]{23,28}\.[\w-]{6,7}\.[\w-]{27,}/g,
];
/** Long opaque strings mixing letters and digits look like keys; UUIDs are ids, kept. */
const OPAQUE_TOKEN = /[\w-]{40,}/g;
const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

/** The arguments as capped JSON with secret-looking fields and values replaced. */
export function summarizeArguments(input: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(input, (key, value: unknown) =>
      key !== '' && SECRET_KEY_NAME.test(key) ? REDACTED : value,
    );
  } catch {
    json = '[unserializable]';
  }
  return summarizeText(json ?? '');
}

/** A result or error text, scrubbed and capped. */
export function summarizeText(text: string): string {
  return capText(scrubSecrets(text), SUMMARY_MAX_CHARS);
}

export function scrubSecrets(text: string): string {
  let scrubbed = text;
  for (const pattern of SECRET_PATTERNS) scrubbed = scrubbed.replace(pattern, REDACTED);
  scrubbed = scrubbed.replace(/([?&;][^=&\s"]*=)([^&\s"#]*)/g, (match, name: string, value) =>
    SECRET_KEY_NAME.test(name) && value !== '' ? `${name}${REDACTED}` : match,
  );
  return scrubbed.replace(OPAQUE_TOKEN, (candidate) =>
    UUID.test(candidate) || !/\d/.test(candidate) || !/[a-z]/i.test(candidate)
      ? candidate
      : REDACTED,
  );
}

/**
 * Cuts text to at most `maxChars` characters (never inside a surrogate pair) and says how much
 * was cut, so the model knows the result is partial.
 */
export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = (omitted: number) => `… [${omitted} more characters cut]`;
  let end = Math.max(0, maxChars - marker(text.length).length);
  // The count may have fewer digits than the first guess: use the room that frees.
  while (end + 1 + marker(text.length - end - 1).length <= maxChars) end += 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${marker(text.length - end)}`;
}
