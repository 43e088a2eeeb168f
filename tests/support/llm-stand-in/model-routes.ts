/**
 * The vendors' "get one model" routes, which the adapters' `checkModel` calls: OpenAI
 * GET /v1/models/{id}, Anthropic GET /v1/models/{id}, Gemini GET /v1beta/models/{id}. A test
 * decides the answer with a handler; `modelLookup({ knownModels, acceptedKeys })` builds the
 * usual one. Records and failures are in each vendor's real shape.
 */
import type { RecordedRequest } from './recorded-request.ts';
import type { ScriptFailureKind, StandInVendor } from './script.ts';
import { vendorError } from './vendor-errors.ts';

export type ModelLookupAnswer =
  | { type: 'found' }
  | {
      type: 'fail';
      kind: Exclude<ScriptFailureKind, 'content_filter'>;
      retryAfterSeconds?: number;
    }
  /** Any status with a literal body: a local server's own 404 page, say. */
  | { type: 'http-error'; status: number; body: string; headers?: Record<string, string> }
  /** Destroys the socket without answering (a network failure as the client sees it). */
  | { type: 'drop' };

/** Decides one lookup; may wait (on a gate, say) to hold the response open. */
export type ModelLookupHandler = (
  request: RecordedRequest,
) => ModelLookupAnswer | Promise<ModelLookupAnswer>;

export interface ModelLookupOptions {
  /** The models that exist: a list, or a predicate. Default: every model. */
  knownModels?: Iterable<string> | ((model: string, vendor: StandInVendor) => boolean);
  /** The keys that authenticate. Default: any key, or none. */
  acceptedKeys?: Iterable<string>;
}

/** A handler answering `auth` to a key not accepted, `model` to a model not known, else found. */
export function modelLookup(options: ModelLookupOptions = {}): ModelLookupHandler {
  const { knownModels } = options;
  const known = new Set(typeof knownModels === 'object' ? knownModels : []);
  const isKnown =
    knownModels === undefined
      ? () => true
      : typeof knownModels === 'function'
        ? knownModels
        : (model: string) => known.has(model);
  const acceptedKeys =
    options.acceptedKeys === undefined ? undefined : new Set(options.acceptedKeys);
  return (request) => {
    if (acceptedKeys !== undefined && !acceptedKeys.has(request.apiKey ?? ''))
      return { type: 'fail', kind: 'auth' };
    if (!isKnown(request.model, request.vendor)) return { type: 'fail', kind: 'model' };
    return { type: 'found' };
  };
}

const LOOKUP_PATHS: ReadonlyArray<[StandInVendor, RegExp]> = [
  ['openai', /^\/openai\/v1\/models\/([^/]+)$/],
  ['anthropic', /^\/anthropic\/v1\/models\/([^/]+)$/],
  // A colon would make it a method call (models/x:streamGenerateContent), not a lookup.
  ['google', /^\/google\/[^/]+\/models\/([^:/]+)$/],
];

/** The vendor and model id a GET path asks about, or undefined when it is no lookup route. */
export function modelLookupRoute(
  pathname: string,
): { vendor: StandInVendor; model: string } | undefined {
  for (const [vendor, pattern] of LOOKUP_PATHS) {
    const encoded = pattern.exec(pathname)?.[1];
    if (encoded !== undefined) return { vendor, model: decodeURIComponent(encoded) };
  }
  return undefined;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A complete, non-streamed HTTP response. */
export interface ModelLookupResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Whether a GET path is OpenAI's list route (GET /v1/models), which local servers serve. */
export function isModelListRoute(pathname: string): boolean {
  return pathname === '/openai/v1/models';
}

/** OpenAI's list of models, in its real shape (one page). */
export function renderModelList(models: readonly string[]): ModelLookupResponse {
  const data = models.map((model) => modelRecord('openai', model));
  return { status: 200, headers: JSON_HEADERS, body: JSON.stringify({ object: 'list', data }) };
}

/** The HTTP response (status, headers, JSON body) for an answer other than `drop`. */
export function renderModelLookup(
  answer: Exclude<ModelLookupAnswer, { type: 'drop' }>,
  request: RecordedRequest,
): ModelLookupResponse {
  if (answer.type === 'http-error') {
    const headers = answer.headers ?? { 'content-type': 'text/plain' };
    return { status: answer.status, headers, body: answer.body };
  }
  if (answer.type === 'fail') {
    return vendorError(request.vendor, answer.kind, {
      model: request.model,
      retryAfterSeconds: answer.retryAfterSeconds,
    });
  }
  return {
    status: 200,
    headers: JSON_HEADERS,
    body: JSON.stringify(modelRecord(request.vendor, request.model)),
  };
}

function modelRecord(vendor: StandInVendor, model: string): Record<string, unknown> {
  const displayName = model
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
  switch (vendor) {
    case 'openai':
      return { id: model, object: 'model', created: 1_745_000_000, owned_by: 'system' };
    case 'anthropic':
      return {
        type: 'model',
        id: model,
        display_name: displayName,
        created_at: '2026-02-17T00:00:00Z',
      };
    case 'google':
      return {
        name: `models/${model}`,
        version: '001',
        displayName,
        description: `Stand-in record of ${model}.`,
        inputTokenLimit: 1_048_576,
        outputTokenLimit: 65_536,
        supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent'],
        temperature: 1,
        topP: 0.95,
        topK: 64,
        maxTemperature: 2,
        thinking: true,
      };
  }
}
