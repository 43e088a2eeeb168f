import type {
  AssistantMessage,
  ProviderMetadata,
  ReasoningPart,
  TextPart,
  ToolCallPart,
} from '../../core/chat.ts';
import type { StreamPart } from '../../core/stream-part.ts';

/** A streamed tool call as the conversation keeps it (its provider metadata only when given). */
export function toolCallPartOf(part: Extract<StreamPart, { type: 'tool-call' }>): ToolCallPart {
  const call: ToolCallPart = { type: 'tool-call', id: part.id, name: part.name, input: part.input };
  if (part.providerMetadata !== undefined) call.providerMetadata = part.providerMetadata;
  return call;
}

/**
 * Builds the assistant message of one model call from its stream parts, in stream order:
 * consecutive deltas of a kind merge into one part; a reasoning delta carrying provider
 * metadata (a signature) closes its reasoning part. Text is joined once, at the end, so a
 * reply of thousands of deltas costs no quadratic copying.
 */
export class AssistantMessageBuilder {
  private readonly parts: Array<TextPart | ReasoningPart | ToolCallPart> = [];
  private open: { type: 'text' | 'reasoning'; pieces: string[] } | undefined;

  addText(text: string): void {
    this.piecesOf('text').push(text);
  }

  addReasoning(text: string, providerMetadata?: ProviderMetadata): void {
    this.piecesOf('reasoning').push(text);
    if (providerMetadata !== undefined) this.close(providerMetadata);
  }

  addToolCall(call: ToolCallPart): void {
    this.close();
    this.parts.push(call);
  }

  /** The message, or undefined when the call produced nothing. */
  build(): AssistantMessage | undefined {
    this.close();
    return this.parts.length === 0 ? undefined : { role: 'assistant', content: [...this.parts] };
  }

  private piecesOf(type: 'text' | 'reasoning'): string[] {
    if (this.open?.type !== type) {
      this.close();
      this.open = { type, pieces: [] };
    }
    return this.open.pieces;
  }

  private close(providerMetadata?: ProviderMetadata): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    const text = open.pieces.join('');
    if (open.type === 'text') {
      if (text !== '') this.parts.push({ type: 'text', text });
    } else {
      this.parts.push(
        providerMetadata === undefined
          ? { type: 'reasoning', text }
          : { type: 'reasoning', text, providerMetadata },
      );
    }
  }
}
