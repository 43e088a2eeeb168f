import type { Logger } from '../../core/logger.ts';

/** A stderr line is a diagnostic: longer ones are cut (a dumped request can hold anything). */
export const MAX_STDERR_LINE = 500;
/** Text without a newline kept while waiting for the rest of its line. */
const MAX_PENDING = 8_192;
const REDACTED = '[REDACTED]';

/**
 * Turns an MCP server's stderr into debug log lines, never verbatim: chunks are joined into
 * whole lines first (so a token split across two reads is still recognised), every secret the
 * operator filled in from `${NAME}` is replaced, and each line is capped. Only at debug level:
 * a server's chatter is not the bot's info log.
 */
export class ServerStderr {
  readonly #logger: Logger;
  readonly #secrets: readonly string[];
  #pending = '';

  constructor(options: { logger: Logger; secrets: readonly string[] }) {
    this.#logger = options.logger;
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...options.secrets].sort((a, b) => b.length - a.length);
  }

  push(chunk: Buffer | string): void {
    const text = this.#pending + chunk.toString();
    const lines = text.split('\n');
    this.#pending = lines.pop() ?? '';
    if (this.#pending.length > MAX_PENDING) {
      lines.push(this.#pending);
      this.#pending = '';
    }
    for (const line of lines) this.#log(line);
  }

  /** Logs what is left of an unfinished last line (the process ended). */
  flush(): void {
    this.#log(this.#pending);
    this.#pending = '';
  }

  #log(line: string): void {
    if (line.trim() === '') return;
    let redacted = line.replace(/\r$/, '');
    for (const secret of this.#secrets) redacted = redacted.split(secret).join(REDACTED);
    const cut =
      redacted.length > MAX_STDERR_LINE ? `${redacted.slice(0, MAX_STDERR_LINE)}…` : redacted;
    this.#logger.debug({ line: cut }, 'MCP server stderr');
  }
}
