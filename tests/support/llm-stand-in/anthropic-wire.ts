/**
 * Anthropic Messages streaming: `event:` + `data:` pairs from message_start through content
 * blocks (text, thinking with signature_delta, redacted_thinking, tool_use with input_json_delta)
 * to message_delta (stop_reason, usage) and message_stop; failures as `event: error`.
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

const STOP_REASONS: Record<ScriptFinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

const MID_STREAM_ERROR_TYPES: Record<string, string> = {
  overloaded: 'overloaded_error',
  rate_limit: 'rate_limit_error',
  timeout: 'timeout_error',
};

export function renderAnthropic(script: Script, request: RecordedRequest): RenderedResponse {
  const first = script.steps[0];
  const early = first === undefined ? undefined : earlyError('anthropic', first, request.model);
  if (early) return early;

  const event = (name: string, data: Record<string, unknown>): Frame =>
    dataFrame(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`);
  const usageStep = script.steps.find((step) => step.type === 'usage');
  const frames: Frame[] = [
    event('message_start', {
      message: {
        id: `msg_standin${request.id}`,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          // Anthropic counts cache reads apart from (not inside) input_tokens.
          input_tokens: (usageStep?.inputTokens ?? 0) - (usageStep?.cachedInputTokens ?? 0),
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: usageStep?.cachedInputTokens ?? 0,
          output_tokens: 1,
        },
      },
    }),
    event('ping', {}),
  ];

  let index = -1;
  let open: 'text' | 'thinking' | undefined;
  const close = (): void => {
    if (open === undefined) return;
    frames.push(event('content_block_stop', { index }));
    open = undefined;
  };
  const start = (kind: 'text' | 'thinking', block: Record<string, unknown>): void => {
    if (open === kind) return;
    close();
    index += 1;
    open = kind;
    frames.push(event('content_block_start', { index, content_block: block }));
  };
  const delta = (value: Record<string, unknown>) =>
    event('content_block_delta', { index, delta: value });
  const finish = (reason: ScriptFinishReason): void => {
    close();
    frames.push(
      event('message_delta', {
        delta: { stop_reason: STOP_REASONS[reason], stop_sequence: null },
        usage: { output_tokens: usageStep?.outputTokens ?? 0 },
      }),
      event('message_stop', {}),
    );
  };

  for (const step of script.steps) {
    switch (step.type) {
      case 'text':
        start('text', { type: 'text', text: '' });
        frames.push(delta({ type: 'text_delta', text: step.text }));
        break;
      case 'reasoning':
        start('thinking', { type: 'thinking', thinking: '', signature: '' });
        frames.push(delta({ type: 'thinking_delta', thinking: step.text }));
        break;
      case 'reasoning-end':
        if (open === 'thinking' && step.signature !== undefined) {
          frames.push(delta({ type: 'signature_delta', signature: step.signature }));
        }
        close();
        break;
      case 'redacted-reasoning':
        close();
        index += 1;
        frames.push(
          event('content_block_start', {
            index,
            content_block: { type: 'redacted_thinking', data: step.data },
          }),
          event('content_block_stop', { index }),
        );
        break;
      case 'tool-calls':
        for (const call of step.calls) {
          close();
          index += 1;
          frames.push(
            event('content_block_start', {
              index,
              content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
            }),
          );
          for (const piece of splitIntoPieces(call.arguments, call.fragments ?? 3)) {
            frames.push(delta({ type: 'input_json_delta', partial_json: piece }));
          }
          frames.push(event('content_block_stop', { index }));
        }
        break;
      case 'usage':
        break;
      case 'finish':
        finish(step.reason);
        break;
      case 'fail': {
        if (step.kind === 'content_filter') {
          finish('content_filter');
          break;
        }
        const type = MID_STREAM_ERROR_TYPES[step.kind] ?? 'api_error';
        frames.push(
          dataFrame(
            `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message: type === 'overloaded_error' ? 'Overloaded' : 'Internal server error' } })}\n\n`,
          ),
        );
        return { type: 'stream', frames };
      }
      case 'http-error':
        throw new Error('an http-error step must come first');
      case 'drop':
        frames.push({ type: 'drop' });
        return { type: 'stream', frames };
      case 'malformed':
        frames.push(dataFrame(`event: content_block_delta\n${MALFORMED_EVENT}`));
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
  return { type: 'stream', frames };
}
