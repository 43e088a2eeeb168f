import { ProviderError } from '../../core/errors.ts';
import { runModelCheck } from '../model-check.ts';
import { retryAfterFromHeaders } from '../retry-after.ts';
import { classifyTransportError } from '../transport-error.ts';
import { openAIErrorKind, stringOrUndefined } from './openai-error-kind.ts';

export interface ServerModelListOptions {
  /** The server's OpenAI-compatible base URL (OPENAI_BASE_URL), e.g. http://localhost:11434/v1. */
  baseUrl: string;
  /** Undefined for a keyless local server: no Authorization header is sent. */
  apiKey: string | undefined;
  signal: AbortSignal;
}

/**
 * GET {baseUrl}/models of an OpenAI-compatible server: the ids of the models it offers (the
 * first page, which is the whole list on the local servers that use it). Sent with the global
 * fetch, not the OpenAI SDK: the bot asks at start (to make a server's one model the default),
 * and the SDK, about 4 MB of heap, then loads only when a turn first needs it. Rejects with a
 * ProviderError sorted like a chat call's; an aborted signal rejects with its own reason.
 */
export async function listServerModels(options: ServerModelListOptions): Promise<string[]> {
  let ids: string[] = [];
  await runModelCheck({
    lookup: async (signal) => {
      ids = await requestModelIds({ ...options, signal });
    },
    classify: classifyListingError,
    signal: options.signal,
  });
  return ids;
}

async function requestModelIds(options: ServerModelListOptions): Promise<string[]> {
  const { apiKey } = options;
  const response = await fetch(modelsUrl(options.baseUrl), {
    headers: {
      accept: 'application/json',
      ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
    },
    signal: options.signal,
  });
  const body = await response.text();
  if (!response.ok) throw refusal(response, body);
  return modelIds(body);
}

/** The SDK's join: one slash between the base URL and the route, whatever the operator wrote. */
function modelsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/models`;
}

/** An error answer, read as OpenAI writes it (`{ error: { message, code, type } }`) when it is. */
function refusal(response: Response, body: string): ProviderError {
  const detail = errorObject(body);
  const status = response.status;
  const message = stringOrUndefined(detail['message']) ?? (body.slice(0, 200) || `HTTP ${status}`);
  const kind = openAIErrorKind({
    status,
    code: stringOrUndefined(detail['code']),
    type: stringOrUndefined(detail['type']),
    message,
  });
  return new ProviderError({
    kind,
    message: `openai ${status}: ${message}`,
    status,
    retryAfterMs: kind === 'rate_limit' ? retryAfterFromHeaders(response.headers) : undefined,
    provider: 'openai',
  });
}

function errorObject(body: string): Record<string, unknown> {
  const parsed = parseJson(body);
  if (!isRecord(parsed)) return {};
  return isRecord(parsed['error']) ? parsed['error'] : parsed;
}

/** `{ data: [{ id }, …] }`; anything else is a server that is not OpenAI-compatible here. */
function modelIds(body: string): string[] {
  const parsed = parseJson(body);
  const data = isRecord(parsed) ? parsed['data'] : undefined;
  if (!Array.isArray(data)) {
    throw new ProviderError({
      kind: 'bad_request',
      message: 'openai: the server answered GET /models with something other than a model list',
      provider: 'openai',
    });
  }
  return data.flatMap((model: unknown) => {
    const id = isRecord(model) ? stringOrUndefined(model['id']) : undefined;
    return id === undefined ? [] : [id];
  });
}

function classifyListingError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  return (
    classifyTransportError(error, 'openai') ??
    new ProviderError({
      kind: 'network',
      message: `openai: ${error instanceof Error ? error.message : String(error)}`,
      provider: 'openai',
      cause: error,
    })
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
