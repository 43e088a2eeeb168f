import type { ChatMessage, ChatRequest } from '../../core/chat.ts';
import type { StopRequest } from './stop-registry.ts';

export interface StopAcknowledgementInput {
  /** The request of the turn that was stopped (persona system prompt and history). */
  request: ChatRequest;
  /** What the model had written when it was stopped (may be empty). */
  interruptedText: string;
  stop: StopRequest;
  /** Defaults to 150: the answer is one short sentence. */
  maxOutputTokens?: number;
}

/** How much of a long interrupted reply the acknowledgement sees (its end matters most). */
const INTERRUPTED_TEXT_LIMIT = 4000;

/**
 * The request for the short in-persona acknowledgement after a stop ("oh, sorry — I'll stop
 * there"). It keeps the persona and history, shows the model what it was saying when it was
 * interrupted and who stopped it with what words, and offers no tools. Pure: the caller runs
 * it as an ordinary turn.
 */
export function buildStopAcknowledgementRequest(input: StopAcknowledgementInput): ChatRequest {
  const { request, stop } = input;
  const interrupted = input.interruptedText.trim();
  const shown =
    interrupted.length > INTERRUPTED_TEXT_LIMIT
      ? `…${interrupted.slice(-INTERRUPTED_TEXT_LIMIT)}`
      : interrupted;
  const instruction =
    `[Your reply was interrupted: ${stop.authorName} asked you to stop ("${stop.content}"). ` +
    (shown === ''
      ? 'You had not said anything yet. '
      : 'Your previous message is what you had written when you were stopped. ') +
    'Acknowledge it in character in one short sentence, in the language they used. ' +
    'Do not continue, repeat or summarise the interrupted reply.]';

  const messages: ChatMessage[] = [...request.messages];
  if (shown !== '') messages.push({ role: 'assistant', content: [{ type: 'text', text: shown }] });
  const last = messages.at(-1);
  if (last?.role === 'user') {
    // Nothing was said yet: add the stop to the pending user message rather than sending two
    // user messages in a row (not every provider accepts that).
    messages[messages.length - 1] = {
      role: 'user',
      content: [...last.content, { type: 'text', text: stop.content }],
    };
  } else {
    messages.push({ role: 'user', content: [{ type: 'text', text: stop.content }] });
  }
  return {
    ...request,
    system: request.system === '' ? instruction : `${request.system}\n\n${instruction}`,
    messages,
    tools: [],
    maxOutputTokens: input.maxOutputTokens ?? 150,
  };
}
