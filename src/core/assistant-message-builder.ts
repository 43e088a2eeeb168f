import type { AssistantMessage, ProviderMetadata } from './chat.ts';
import type { StreamPart } from './stream-part.ts';

/**
 * Collects one model step's stream parts into the AssistantMessage that goes back into history,
 * so the next request of a tool loop carries exactly what the model produced: consecutive text
 * deltas joined, reasoning deltas joined into blocks, tool calls with their metadata.
 *
 * A reasoning block ends at the delta that carries `providerMetadata` (the vendor's signature),
 * or when text or a tool call follows; signed blocks must reach the vendor unchanged.
 */
export class AssistantMessageBuilder {
  readonly #content: AssistantMessage['content'] = [];

  add(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta': {
        const last = this.#content.at(-1);
        if (last?.type === 'text') last.text += part.text;
        else if (part.text !== '') this.#content.push({ type: 'text', text: part.text });
        return;
      }
      case 'reasoning-delta':
        this.#addReasoning(part.text, part.providerMetadata);
        return;
      case 'tool-call':
        this.#content.push({
          type: 'tool-call',
          id: part.id,
          name: part.name,
          input: part.input,
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        });
        return;
      case 'step-end':
      case 'error':
        return;
    }
  }

  /** The message so far (empty content when the step produced nothing). */
  build(): AssistantMessage {
    return { role: 'assistant', content: this.#content.map((part) => ({ ...part })) };
  }

  #addReasoning(text: string, metadata: ProviderMetadata | undefined): void {
    const last = this.#content.at(-1);
    if (last?.type === 'reasoning' && last.providerMetadata === undefined) {
      last.text += text;
      if (metadata) last.providerMetadata = metadata;
      return;
    }
    if (text === '' && metadata === undefined) return;
    this.#content.push({
      type: 'reasoning',
      text,
      ...(metadata ? { providerMetadata: metadata } : {}),
    });
  }
}
