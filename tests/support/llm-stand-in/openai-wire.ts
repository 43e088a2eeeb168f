/**
 * OpenAI chat.completions streaming: `data: {chunk}` events, tool-call argument fragments keyed
 * by index (interleaved for parallel calls), a usage chunk with empty choices, `data: [DONE]`.
 */
import type { RecordedRequest } from './recorded-request.ts';
import {
  dataFrame,
  earlyError,
  MALFORMED_EVENT,
  type Frame,
  type RenderedResponse,
} from './rendered-response.ts';
import { splitIntoPieces, type Script, type ScriptFinishReason } from './script.ts';
import { vendorError } from './vendor-errors.ts';

export function renderOpenAI(script: Script, request: RecordedRequest): RenderedResponse {
  const first = script.steps[0];
  const early = first === undefined ? undefined : earlyError('openai', first, request.model);
  if (early) return early;

  const created = 1_760_000_000;
  const id = `chatcmpl-standin${request.id}`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Frame =>
    dataFrame(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices, ...extra })}\n\n`,
    );
  const delta = (value: Record<string, unknown>, finishReason: ScriptFinishReason | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);

  const frames: Frame[] = [delta({ role: 'assistant', content: '' })];
  let usage: Record<string, unknown> | undefined;
  let toolIndex = 0;
  let finished = false;
  for (const step of script.steps) {
    switch (step.type) {
      case 'text':
        frames.push(delta({ content: step.text }));
        break;
      case 'reasoning':
        frames.push(delta({ reasoning_content: step.text }));
        break;
      case 'reasoning-end':
      case 'redacted-reasoning':
        break;
      case 'tool-calls': {
        const calls = step.calls.map((call) => ({
          ...call,
          index: toolIndex++,
          pieces: splitIntoPieces(call.arguments, call.fragments ?? 3),
        }));
        for (const call of calls) {
          frames.push(
            delta({
              tool_calls: [
                {
                  index: call.index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            }),
          );
        }
        const longest = Math.max(...calls.map((call) => call.pieces.length));
        for (let piece = 0; piece < longest; piece += 1) {
          for (const call of calls) {
            const text = call.pieces[piece];
            if (text !== undefined) {
              frames.push(
                delta({ tool_calls: [{ index: call.index, function: { arguments: text } }] }),
              );
            }
          }
        }
        break;
      }
      case 'usage':
        usage = {
          prompt_tokens: step.inputTokens,
          completion_tokens: step.outputTokens,
          total_tokens: step.inputTokens + step.outputTokens,
          prompt_tokens_details: { cached_tokens: step.cachedInputTokens ?? 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: step.reasoningTokens ?? 0 },
        };
        break;
      case 'finish':
        frames.push(delta({}, step.reason));
        finished = true;
        break;
      case 'fail':
        if (step.kind === 'content_filter') {
          frames.push(delta({}, 'content_filter'));
          finished = true;
          break;
        }
        // Mid-stream, the API reports a failure as a data event carrying `error`, then stops.
        frames.push(
          dataFrame(`data: ${vendorError('openai', step.kind, { model: request.model }).body}\n\n`),
        );
        return { type: 'stream', frames };
      case 'http-error':
        throw new Error('an http-error step must come first');
      case 'drop':
        frames.push({ type: 'drop' });
        return { type: 'stream', frames };
      case 'malformed':
        frames.push(dataFrame(MALFORMED_EVENT));
        break;
      case 'raw':
        frames.push(dataFrame(step.data));
        break;
      case 'hold':
        frames.push({ type: 'hold', gate: step.gate });
        break;
      case 'no-response':
        break; // answered before rendering: the stand-in never responds
    }
  }
  if (usage !== undefined) frames.push(chunk([], { usage }));
  if (finished) frames.push(dataFrame('data: [DONE]\n\n'));
  return { type: 'stream', frames };
}
