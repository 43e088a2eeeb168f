import type { IncomingHttpHeaders } from 'node:http';
import type { StandInVendor } from './script.ts';

/** One request the stand-in received, as a test (or a handler) sees it. */
export interface RecordedRequest {
  /** Sequence number, from 1, in arrival order. */
  id: number;
  vendor: StandInVendor;
  method: string;
  /** Path and query as received. */
  url: string;
  model: string;
  /** The key the client sent (Bearer, x-api-key, x-goog-api-key or ?key=), if any. */
  apiKey: string | undefined;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** The system instructions, joined. */
  systemText: string;
  /** The text of the last user message (tool results are not user text). */
  lastUserText: string;
  /** True once the client closed the connection before the response was complete. */
  clientClosed: boolean;
  /** Resolves when the exchange is over: response complete, or the client went away. */
  readonly settled: Promise<void>;
}

export type JsonObject = Record<string, unknown>;

/** The value as a JSON object, or an empty one when it is not an object. */
export function asObject(value: unknown): JsonObject {
  return typeof value === 'object' && value !== null ? (value as JsonObject) : {};
}

/** The value as an array, or an empty one when it is not an array. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Text of a content value that is a string or an array of `{type:'text', text}` blocks. */
function blockText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((block) => asObject(block))
    .filter((block) => block['type'] === 'text' && typeof block['text'] === 'string')
    .map((block) => block['text'] as string)
    .join('');
}

export function extractApiKey(headers: IncomingHttpHeaders, url: URL): string | undefined {
  const bearer = /^Bearer (.+)$/i.exec(headers.authorization ?? '')?.[1];
  const header = headers['x-api-key'] ?? headers['x-goog-api-key'];
  return (
    bearer ??
    (typeof header === 'string' ? header : undefined) ??
    url.searchParams.get('key') ??
    undefined
  );
}

/** System text and last user text, read the way each vendor shapes its request. */
export function extractTexts(
  vendor: StandInVendor,
  body: unknown,
): { systemText: string; lastUserText: string } {
  const request = asObject(body);
  if (vendor === 'openai') {
    const messages = asArray(request['messages']).map(asObject);
    const system = messages.filter(
      (message) => message['role'] === 'system' || message['role'] === 'developer',
    );
    const users = messages.filter((message) => message['role'] === 'user');
    return {
      systemText: system.map((message) => blockText(message['content'])).join('\n'),
      lastUserText: blockText(users.at(-1)?.['content']),
    };
  }
  if (vendor === 'anthropic') {
    const users = asArray(request['messages'])
      .map(asObject)
      .filter((message) => message['role'] === 'user' && blockText(message['content']) !== '');
    return {
      systemText: blockText(request['system']),
      lastUserText: blockText(users.at(-1)?.['content']),
    };
  }
  const partsText = (content: unknown): string =>
    asArray(asObject(content)['parts'])
      .map(asObject)
      .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
      .join('');
  const users = asArray(request['contents'])
    .map(asObject)
    .filter((content) => content['role'] === 'user' && partsText(content) !== '');
  return {
    systemText: partsText(request['systemInstruction']),
    lastUserText: partsText(users.at(-1)),
  };
}
