/**
 * A loopback HTTP server (127.0.0.1, random port) that speaks the streaming wire formats of
 * OpenAI chat.completions, Anthropic Messages and Gemini streamGenerateContent, so the real SDKs
 * (and a real bot process) can be tested without the internet. Scripted per test with a queue
 * and/or a handler; records every request and whether the client hung up.
 *
 * ```ts
 * const standIn = await LlmStandIn.start({ handler: (request) => textScript(`You said ${request.lastUserText}`) });
 * standIn.enqueue({ steps: [{ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 2 }] }); // answered first
 * // Point an SDK (or a bot process: OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL) at
 * // standIn.openAIBaseUrl / anthropicBaseUrl / geminiBaseUrl, then inspect standIn.requests.
 * await standIn.close();
 * ```
 *
 * It also serves each vendor's GET-one-model route (what `ChatModel.checkModel` calls), answered
 * by a separate handler: `modelLookup({ knownModels, acceptedKeys })`, every model by default;
 * and OpenAI's GET /v1/models list (what a local server offers), empty until `listModels`.
 * OpenAI's speech routes (audio/transcriptions, audio/speech) are answered by `speech`
 * handlers (speech-wire.ts); their calls are kept in `speechCalls`.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderAnthropic } from './anthropic-wire.ts';
import {
  geminiSpeechCallOf,
  writeGeminiSpeech,
  writeGeminiTranscription,
} from './gemini-speech-wire.ts';
import { renderGemini } from './gemini-wire.ts';
import {
  isModelListRoute,
  modelLookup,
  modelLookupRoute,
  renderModelList,
  renderModelLookup,
  type ModelLookupHandler,
} from './model-routes.ts';
import { renderOpenAI } from './openai-wire.ts';
import {
  defaultSpeechHandlers,
  readSpeechCall,
  readTranscriptionCall,
  speechRouteOf,
  writeSpeech,
  writeTranscription,
  type SpeechCall,
  type SpeechHandlers,
  type TranscriptionCall,
} from './speech-wire.ts';
import { extractApiKey, extractTexts, type RecordedRequest } from './recorded-request.ts';
import type { RenderedResponse } from './rendered-response.ts';
import type { Script, StandInVendor } from './script.ts';
import { hangUp, hungUp, writeStream } from './stream-writer.ts';

/** What the list route answers: ids, or a function resolving to them (to hold the response). */
export type ListedModels = readonly string[] | (() => Promise<readonly string[]>);

export type ScriptHandler = (request: RecordedRequest) => Script | Promise<Script>;

export interface LlmStandInOptions {
  /** Answers requests when the queue is empty. */
  handler?: ScriptHandler;
  /** Real milliseconds between events for every script that does not set its own. Default 0. */
  eventDelayMs?: number;
  /** Answers the GET model routes. Default: `modelLookup()`, every model with any key. */
  modelLookup?: ModelLookupHandler;
  /** What OpenAI's GET /v1/models lists (a function may hold the answer). Default: nothing. */
  listedModels?: ListedModels;
  /** Answers the speech routes. Default: `defaultSpeechHandlers()`. */
  speech?: Partial<SpeechHandlers>;
}

const RENDERERS: Record<
  StandInVendor,
  (script: Script, request: RecordedRequest) => RenderedResponse
> = {
  openai: renderOpenAI,
  anthropic: renderAnthropic,
  google: renderGemini,
};

const GEMINI_PATH = /^\/google\/[^/]+\/models\/([^:/]+):streamGenerateContent$/;
/** Gemini's one-shot call: only audio understanding (a transcription) uses it here. */
const GEMINI_GENERATE = /^\/google\/[^/]+\/models\/[^:/]+:generateContent$/;

export class LlmStandIn {
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** Every speech call received (transcriptions and syntheses), in arrival order. */
  readonly speechCalls: Array<TranscriptionCall | SpeechCall> = [];
  readonly url: string;
  readonly #server: http.Server;
  readonly #queue: Script[] = [];
  readonly #waiters: Array<{ count: number; resolve: (request: RecordedRequest) => void }> = [];
  #handler: ScriptHandler | undefined;
  #modelLookup: ModelLookupHandler;
  #listedModels: ListedModels;
  #speech: SpeechHandlers;
  readonly #eventDelayMs: number;

  private constructor(server: http.Server, options: LlmStandInOptions) {
    this.#server = server;
    this.#handler = options.handler;
    this.#modelLookup = options.modelLookup ?? modelLookup();
    this.#listedModels = options.listedModels ?? [];
    this.#speech = { ...defaultSpeechHandlers(), ...options.speech };
    this.#eventDelayMs = options.eventDelayMs ?? 0;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  static async start(options: LlmStandInOptions = {}): Promise<LlmStandIn> {
    const server = http.createServer();
    // Many bot tests stream to hundreds of channels at once.
    server.maxConnections = 10_000;
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const standIn = new LlmStandIn(server, options);
    server.on('request', (request, response) => {
      standIn.#serve(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`llm stand-in failed: ${String(error)}`);
      });
    });
    return standIn;
  }

  /** The `baseURL` the OpenAI SDK expects (it appends /chat/completions). */
  get openAIBaseUrl(): string {
    return `${this.url}/openai/v1`;
  }

  /** The `baseURL` the Anthropic SDK expects (it appends /v1/messages). */
  get anthropicBaseUrl(): string {
    return `${this.url}/anthropic`;
  }

  /** The `httpOptions.baseUrl` the Google GenAI SDK expects (it appends /{version}/models/…). */
  get geminiBaseUrl(): string {
    return `${this.url}/google`;
  }

  baseUrlFor(vendor: StandInVendor): string {
    if (vendor === 'openai') return this.openAIBaseUrl;
    return vendor === 'anthropic' ? this.anthropicBaseUrl : this.geminiBaseUrl;
  }

  /** Scripts answered in order, before the handler is consulted. */
  enqueue(...scripts: Script[]): void {
    this.#queue.push(...scripts);
  }

  handle(handler: ScriptHandler | undefined): void {
    this.#handler = handler;
  }

  /** Replaces how the GET model routes answer (see `modelLookup`). */
  handleModelLookups(handler: ModelLookupHandler): void {
    this.#modelLookup = handler;
  }

  /** Replaces what OpenAI's GET /v1/models lists. */
  listModels(models: ListedModels): void {
    this.#listedModels = models;
  }

  /** Replaces how the speech routes answer (the handlers not given stay). */
  handleSpeech(handlers: Partial<SpeechHandlers>): void {
    this.#speech = { ...this.#speech, ...handlers };
  }

  /** Resolves with the `count`-th request (1-based) once it has arrived. */
  waitForRequest(count = this.requests.length + 1): Promise<RecordedRequest> {
    const arrived = this.requests[count - 1];
    if (arrived) return Promise.resolve(arrived);
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    if (request.method === 'GET' && isModelListRoute(url.pathname)) {
      await readBody(request);
      this.#record({ request, response, url, vendor: 'openai', body: undefined });
      const listed = this.#listedModels;
      const rendered = renderModelList(typeof listed === 'function' ? await listed() : listed);
      response.writeHead(rendered.status, rendered.headers).end(rendered.body);
      return;
    }
    const lookup = request.method === 'GET' ? modelLookupRoute(url.pathname) : undefined;
    if (lookup !== undefined) {
      await this.#serveModelLookup({ request, response, url, ...lookup });
      return;
    }
    const speechRoute = request.method === 'POST' ? speechRouteOf(url.pathname) : undefined;
    if (speechRoute !== undefined) {
      await this.#serveSpeech(request, response, speechRoute);
      return;
    }
    const vendor = vendorOf(url.pathname);
    if (
      (vendor === undefined && !GEMINI_GENERATE.test(url.pathname)) ||
      request.method !== 'POST'
    ) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`no route ${url.pathname}`);
      return;
    }
    const text = await readBody(request);
    const body = parseJson(text);
    const apiKey = extractApiKey(request.headers, url);
    const geminiSpeech = geminiSpeechCallOf(url.pathname, body, apiKey);
    if (geminiSpeech !== undefined) {
      await this.#serveGeminiSpeech(response, geminiSpeech);
      return;
    }
    if (vendor === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`no route ${url.pathname}`);
      return;
    }
    const record = this.#record({ request, response, url, vendor, body });
    const script = this.#queue.shift() ?? (await this.#handler?.(record));
    if (script === undefined) {
      response
        .writeHead(500, { 'content-type': 'text/plain' })
        .end('llm stand-in: no script for this request');
      return;
    }
    if (script.steps[0]?.type === 'no-response') {
      await record.settled;
      return;
    }
    const rendered = RENDERERS[vendor](script, record);
    if (rendered.type === 'error') {
      response.writeHead(rendered.status, rendered.headers).end(rendered.body);
      return;
    }
    await writeStream(response, rendered.frames, {
      eventDelayMs: script.eventDelayMs ?? this.#eventDelayMs,
      chunkBytes: script.chunkBytes,
      settled: record.settled,
    });
  }

  async #serveSpeech(
    request: IncomingMessage,
    response: ServerResponse,
    route: 'transcription' | 'speech',
  ): Promise<void> {
    const body = await readBytes(request);
    const apiKey = extractApiKey(request.headers, new URL(request.url ?? '/', this.url));
    if (route === 'transcription') {
      const call = await readTranscriptionCall(request, body, apiKey);
      this.speechCalls.push(call);
      writeTranscription(response, await this.#speech.transcribe(call), call.model);
      return;
    }
    const call = readSpeechCall(body, apiKey);
    this.speechCalls.push(call);
    await writeSpeech(response, await this.#speech.speak(call), call.model);
  }

  async #serveGeminiSpeech(
    response: ServerResponse,
    call: TranscriptionCall | SpeechCall,
  ): Promise<void> {
    this.speechCalls.push(call);
    if (call.kind === 'transcription') {
      writeGeminiTranscription(response, await this.#speech.transcribe(call), call.model);
      return;
    }
    await writeGeminiSpeech(response, await this.#speech.speak(call), call.model);
  }

  async #serveModelLookup(options: {
    request: IncomingMessage;
    response: ServerResponse;
    url: URL;
    vendor: StandInVendor;
    model: string;
  }): Promise<void> {
    await readBody(options.request);
    const record = this.#record({ ...options, body: undefined });
    const answer = await this.#modelLookup(record);
    if (answer.type === 'drop') {
      hangUp(options.response);
      return;
    }
    const rendered = renderModelLookup(answer, record);
    options.response.writeHead(rendered.status, rendered.headers).end(rendered.body);
  }

  #record(options: {
    request: IncomingMessage;
    response: ServerResponse;
    url: URL;
    vendor: StandInVendor;
    body: unknown;
    /** Taken from the path when the route names the model. */
    model?: string;
  }): RecordedRequest {
    const { request, response, url, vendor, body } = options;
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const model =
      options.model ??
      (vendor === 'google'
        ? decodeURIComponent(GEMINI_PATH.exec(url.pathname)?.[1] ?? '')
        : modelOf(body));
    const record: RecordedRequest = {
      id: this.requests.length + 1,
      vendor,
      method: request.method ?? 'POST',
      url: `${url.pathname}${url.search}`,
      model,
      apiKey: extractApiKey(request.headers, url),
      headers: request.headers,
      body,
      ...extractTexts(vendor, body),
      clientClosed: false,
      settled,
    };
    response.on('close', () => {
      // Closed before we finished writing, and not because the script dropped the connection.
      if (!response.writableFinished && !hungUp(response)) record.clientClosed = true;
      settle();
    });
    this.requests.push(record);
    for (const waiter of [...this.#waiters]) {
      if (waiter.count <= this.requests.length) {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(this.requests[waiter.count - 1] ?? record);
      }
    }
    return record;
  }
}

function modelOf(body: unknown): string {
  const model = (body as { model?: unknown } | undefined)?.model;
  return typeof model === 'string' ? model : '';
}

function vendorOf(pathname: string): StandInVendor | undefined {
  if (pathname.startsWith('/openai/') && pathname.endsWith('/chat/completions')) return 'openai';
  if (pathname.startsWith('/anthropic/') && pathname.endsWith('/v1/messages')) return 'anthropic';
  if (GEMINI_PATH.test(pathname)) return 'google';
  return undefined;
}

async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBytes(request)).toString('utf8');
}

async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
