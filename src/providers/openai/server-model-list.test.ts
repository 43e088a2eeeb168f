import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../core/errors.ts';
import { listServerModels } from './server-model-list.ts';

/** A loopback server whose answer to GET /v1/models each test sets; it records what it was sent. */
let answer: { status: number; body: string; headers?: Record<string, string> };
let received: { url: string | undefined; headers: IncomingHttpHeaders }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push({ url: request.url, headers: request.headers });
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const open = () => new AbortController().signal;

function list(options: { apiKey?: string; base?: string } = {}): Promise<string[]> {
  return listServerModels({
    baseUrl: options.base ?? baseUrl,
    apiKey: options.apiKey,
    signal: open(),
  });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ProviderError))
    throw new Error(`expected a ProviderError: ${String(error)}`);
  return error;
}

describe('listServerModels: GET /models of an OpenAI-compatible server without the SDK', () => {
  it('lists the ids, sending the key as a bearer token, whatever slash ends the base URL', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ object: 'list', data: [{ id: 'llama3.1:8b' }, { id: 'qwen3:14b' }] }),
    };
    received = [];
    await expect(list({ apiKey: 'sk-scope', base: `${baseUrl}/` })).resolves.toEqual([
      'llama3.1:8b',
      'qwen3:14b',
    ]);
    expect(received.map((request) => [request.url, request.headers.authorization])).toEqual([
      ['/v1/models', 'Bearer sk-scope'],
    ]);
  });

  it('sends no Authorization header to a keyless local server', async () => {
    answer = { status: 200, body: JSON.stringify({ data: [] }) };
    received = [];
    await expect(list()).resolves.toEqual([]);
    expect(received[0]?.headers).not.toHaveProperty('authorization');
  });

  it('sorts refusals like a chat call: OpenAI’s error body, the status, a Retry-After', async () => {
    answer = {
      status: 401,
      body: JSON.stringify({ error: { message: 'Incorrect API key', code: 'invalid_api_key' } }),
    };
    const refused = await failure(list({ apiKey: 'sk-wrong' }));
    expect(refused).toMatchObject({ kind: 'auth', status: 401, provider: 'openai' });
    expect(refused.message).toContain('Incorrect API key');
    expect(refused.message).not.toContain('sk-wrong');

    answer = { status: 429, body: '{}', headers: { 'retry-after': '3' } };
    expect(await failure(list())).toMatchObject({ kind: 'rate_limit', retryAfterMs: 3_000 });

    answer = { status: 503, body: 'loading model' };
    const loading = await failure(list());
    expect(loading).toMatchObject({ kind: 'overloaded', status: 503 });
    expect(loading.message).toContain('loading model');
  });

  it('calls an answer that is not a model list a bad request, not an empty list', async () => {
    answer = { status: 200, body: '<html>a web server, not a model server</html>' };
    expect(await failure(list())).toMatchObject({ kind: 'bad_request' });
  });

  it('reports a server that is not there as a network failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await failure(list({ base: `http://127.0.0.1:${port}/v1` }))).toMatchObject({
      kind: 'network',
    });
  });

  it('rejects with the signal’s own reason when the caller gives up', async () => {
    const controller = new AbortController();
    const reason = new ProviderError({ kind: 'timeout', message: 'gave up', provider: 'openai' });
    controller.abort(reason);
    await expect(
      listServerModels({ baseUrl, apiKey: undefined, signal: controller.signal }),
    ).rejects.toBe(reason);
  });
});
