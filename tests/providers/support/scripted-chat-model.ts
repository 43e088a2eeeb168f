import type { ChatRequest } from '../../../src/core/chat.ts';
import type { ProviderError } from '../../../src/core/errors.ts';
import type { ChatModel, ProviderId } from '../../../src/core/provider.ts';
import type { StreamPart } from '../../../src/core/stream-part.ts';

/** What one call of `stream` does: throw before any part, or yield these parts. */
export type Attempt = { throws: ProviderError } | { parts: StreamPart[] };

/**
 * A fake ChatModel answering each call with the next scripted attempt; a `checkModel` call takes
 * an attempt too and passes when it is `{ parts }`.
 */
export class ScriptedChatModel implements ChatModel {
  readonly provider: ProviderId = 'openai';
  readonly #attempts: Attempt[];
  calls = 0;

  constructor(attempts: Attempt[]) {
    this.#attempts = [...attempts];
  }

  async *stream(_request: ChatRequest, _signal: AbortSignal): AsyncGenerator<StreamPart> {
    this.calls += 1;
    const attempt = this.#attempts.shift();
    if (attempt === undefined) throw new Error('no scripted attempt left');
    await Promise.resolve();
    if ('throws' in attempt) throw attempt.throws;
    for (const part of attempt.parts) yield part;
  }

  async checkModel(_modelId: string, _signal: AbortSignal): Promise<void> {
    this.calls += 1;
    const attempt = this.#attempts.shift();
    if (attempt === undefined) throw new Error('no scripted attempt left');
    await Promise.resolve();
    if ('throws' in attempt) throw attempt.throws;
  }
}
