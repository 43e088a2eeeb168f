/**
 * Adapter overhead: iterating an adapter's StreamParts against iterating the raw SDK stream,
 * over the same recorded fixture (2,000 text deltas in the vendor's wire format). The fixture is
 * served by an in-memory fetch, one SSE event per read, so the ratio measures parsing and
 * mapping — not the network, which would hide any overhead behind loopback latency.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { ChatModel } from '../src/core/provider.ts';
import { silentLogger } from '../src/core/logger.ts';
import { AnthropicChatModel } from '../src/providers/anthropic/anthropic-chat-model.ts';
import { GeminiChatModel } from '../src/providers/google/gemini-chat-model.ts';
import { ModelCatalog } from '../src/providers/model-catalog.ts';
import { OpenAIChatModel } from '../src/providers/openai/openai-chat-model.ts';
import { renderAnthropic } from '../tests/support/llm-stand-in/anthropic-wire.ts';
import { renderGemini } from '../tests/support/llm-stand-in/gemini-wire.ts';
import { renderOpenAI } from '../tests/support/llm-stand-in/openai-wire.ts';
import type { RecordedRequest } from '../tests/support/llm-stand-in/recorded-request.ts';
import type { RenderedResponse } from '../tests/support/llm-stand-in/rendered-response.ts';
import { textScript, type StandInVendor } from '../tests/support/llm-stand-in/script.ts';
import { percentile, type BenchRow } from './bench-kit.ts';

const DELTAS = 2_000;
const RUNS = 41;
const WARMUP = 3;
const TARGET_RATIO = 1.2;
const BASE_URL = 'http://fixture.invalid';

const deltas = Array.from({ length: DELTAS }, (_, index) => `word${index % 97} `);

function fixtureEvents(vendor: StandInVendor, model: string): Uint8Array[] {
  const request = { id: 1, vendor, model } as RecordedRequest;
  const render: Record<StandInVendor, () => RenderedResponse> = {
    openai: () => renderOpenAI(textScript(...deltas), request),
    anthropic: () => renderAnthropic(textScript(...deltas), request),
    google: () => renderGemini(textScript(...deltas), request),
  };
  const rendered = render[vendor]();
  if (rendered.type !== 'stream') throw new Error('fixture must be a stream');
  const encoder = new TextEncoder();
  return rendered.frames.flatMap((frame) =>
    frame.type === 'data' ? [encoder.encode(frame.text)] : [],
  );
}

/** A fetch that answers every request with the fixture, one event per read. */
function fixtureFetch(events: readonly Uint8Array[]): typeof fetch {
  return () => {
    let index = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const event = events[index++];
        if (event === undefined) controller.close();
        else controller.enqueue(event);
      },
    });
    return Promise.resolve(
      new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    );
  };
}

interface Contender {
  vendor: StandInVendor;
  raw: () => Promise<number>;
  adapter: () => Promise<number>;
}

function contenders(): Contender[] {
  const catalog = new ModelCatalog();
  const request = (model: string) => ({
    model,
    system: 'Be brief.',
    messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Count.' }] }],
    tools: [],
  });
  const countParts = async (model: ChatModel, modelId: string): Promise<number> => {
    let count = 0;
    for await (const _part of model.stream(request(modelId), new AbortController().signal))
      count += 1;
    return count;
  };
  const openAIFetch = fixtureFetch(fixtureEvents('openai', 'gpt-5.4-mini'));
  const anthropicFetch = fixtureFetch(fixtureEvents('anthropic', 'claude-sonnet-5-5'));
  const geminiFetch = fixtureFetch(fixtureEvents('google', 'gemini-3.8-flash'));
  const vendorOptions = { baseUrl: BASE_URL, catalog, logger: silentLogger };

  const openai = new OpenAI({
    apiKey: 'sk-bench',
    baseURL: BASE_URL,
    maxRetries: 0,
    fetch: openAIFetch,
  });
  const anthropic = new Anthropic({
    apiKey: 'sk-bench',
    baseURL: BASE_URL,
    maxRetries: 0,
    fetch: anthropicFetch,
  });
  const gemini = new GoogleGenAI({
    apiKey: 'bench',
    httpOptions: { baseUrl: BASE_URL, fetch: geminiFetch },
  });
  const openAIModel = new OpenAIChatModel({
    ...vendorOptions,
    apiKey: 'sk-bench',
    fetch: openAIFetch,
  });
  const anthropicModel = new AnthropicChatModel({
    ...vendorOptions,
    apiKey: 'sk-bench',
    fetch: anthropicFetch,
  });
  const geminiModel = new GeminiChatModel({
    ...vendorOptions,
    apiKey: 'bench',
    fetch: geminiFetch,
  });

  return [
    {
      vendor: 'openai',
      raw: async () => {
        let count = 0;
        const stream = await openai.chat.completions.create({
          model: 'gpt-5.4-mini',
          messages: [{ role: 'user', content: 'Count.' }],
          stream: true,
        });
        for await (const _chunk of stream) count += 1;
        return count;
      },
      adapter: () => countParts(openAIModel, 'gpt-5.4-mini'),
    },
    {
      vendor: 'anthropic',
      raw: async () => {
        let count = 0;
        const stream = await anthropic.messages.create({
          model: 'claude-sonnet-5-5',
          max_tokens: 1024,
          messages: [{ role: 'user', content: 'Count.' }],
          stream: true,
        });
        for await (const _event of stream) count += 1;
        return count;
      },
      adapter: () => countParts(anthropicModel, 'claude-sonnet-5-5'),
    },
    {
      vendor: 'google',
      raw: async () => {
        let count = 0;
        const stream = await gemini.models.generateContentStream({
          model: 'gemini-3.8-flash',
          contents: 'Count.',
        });
        for await (const _chunk of stream) count += 1;
        return count;
      },
      adapter: () => countParts(geminiModel, 'gemini-3.8-flash'),
    },
  ];
}

async function timeMs(work: () => Promise<number>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function rows(): Promise<BenchRow[]> {
  const result: BenchRow[] = [];
  for (const contender of contenders()) {
    const parts = await contender.adapter();
    if (parts < DELTAS)
      throw new Error(`${contender.vendor}: expected ${DELTAS} parts, got ${parts}`);
    for (let index = 0; index < WARMUP; index += 1) {
      await contender.raw();
      await contender.adapter();
    }
    // Interleaved pairs, and the median of each pair's ratio: neighbours in time share the load
    // of a busy machine, so the ratio stays meaningful when absolute times swing.
    const ratios: number[] = [];
    const adapter: number[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      const rawMs = await timeMs(contender.raw);
      const adapterMs = await timeMs(contender.adapter);
      ratios.push(adapterMs / rawMs);
      adapter.push(adapterMs);
    }
    const ratio = percentile(ratios, 50);
    const adapterMedian = percentile(adapter, 50);
    result.push(
      {
        name: `providers: ${contender.vendor} adapter vs raw SDK stream`,
        value: ratio,
        unit: '× time',
        target: `≤ ${TARGET_RATIO}`,
        pass: ratio <= TARGET_RATIO,
      },
      {
        name: `providers: ${contender.vendor} adapter time per part`,
        value: (adapterMedian * 1000) / parts,
        unit: 'µs',
      },
    );
  }
  return result;
}
