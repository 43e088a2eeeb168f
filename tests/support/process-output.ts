import type { ChildProcess } from 'node:child_process';

/** One line a process wrote: pino JSON when it parses, raw text otherwise. */
export interface LogLine {
  stream: 'stdout' | 'stderr';
  text: string;
  json: Record<string, unknown> | undefined;
}

/** Collects a child process's stdout and stderr as lines, across restarts, and tells listeners. */
export class ProcessOutput {
  readonly #lines: LogLine[] = [];
  readonly #listeners = new Set<(line: LogLine) => void>();

  lines(): readonly LogLine[] {
    return [...this.#lines];
  }

  text(): string {
    return this.#lines.map((line) => line.text).join('\n');
  }

  subscribe(listener: (line: LogLine) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  capture(child: ChildProcess): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      let pending = '';
      child[stream]?.setEncoding('utf8');
      child[stream]?.on('data', (chunk: string) => {
        pending += chunk;
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const text of parts) this.#record(stream, text);
      });
      child[stream]?.on('end', () => {
        if (pending !== '') this.#record(stream, pending);
        pending = '';
      });
    }
  }

  #record(stream: 'stdout' | 'stderr', text: string): void {
    if (text.trim() === '') return;
    let json: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    const line = { stream, text, json };
    this.#lines.push(line);
    for (const listener of [...this.#listeners]) listener(line);
  }
}
