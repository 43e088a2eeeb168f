/** The part of a Node writable stream the log output needs (process.stdout in production). */
export interface OutputStream {
  write(chunk: string): boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Where log lines go: stdout, until stdout fails. A closed pipe (EPIPE — the reader went away)
 * must not turn every later log line into another failed write whose error is logged again:
 * that loop once spun a bot at 15% CPU, writing thousands of "write EPIPE" lines a second into
 * the dead pipe. After the first failure every line is dropped and `onClosed` runs once.
 */
export class LogOutput {
  readonly #stream: OutputStream;
  #closed = false;
  #onClosed: ((error: Error) => void) | undefined;

  constructor(stream: OutputStream) {
    this.#stream = stream;
    stream.on('error', (error) => this.#close(error));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Called once, with the error, when the output fails (set by the composition root). */
  set onClosed(listener: (error: Error) => void) {
    this.#onClosed = listener;
  }

  write(line: string): boolean {
    if (this.#closed) return true;
    try {
      return this.#stream.write(line);
    } catch (error) {
      this.#close(error instanceof Error ? error : new Error(String(error)));
      return true;
    }
  }

  #close(error: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClosed?.(error);
  }
}
