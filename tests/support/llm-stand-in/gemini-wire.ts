/**
 * Gemini `:streamGenerateContent?alt=sse`: each event is a whole GenerateContentResponse
 * (candidates[0].content.parts with text, `thought` parts, whole functionCall parts and
 * thoughtSignature), the last one carrying finishReason and usageMetadata. A blocked prompt is a
 * 200 with promptFeedback.blockReason; a failure mid-stream is a data event carrying `error`.
 */
import type { RecordedRequest } from './recorded-request.ts';
import {
  dataFrame,
  earlyError,
  MALFORMED_EVENT,
  type Frame,
  type RenderedResponse,
} from './rendered-response.ts';
import type { Script, ScriptFinishReason } from './script.ts';
import { vendorError } from './vendor-errors.ts';

const FINISH_REASONS: Record<ScriptFinishReason, string> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  // Gemini ends a function-calling turn with STOP; the calls themselves say it.
  tool_calls: 'STOP',
  content_filter: 'SAFETY',
};

const SAFETY_RATINGS = [
  { category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true },
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
];

export function renderGemini(script: Script, request: RecordedRequest): RenderedResponse {
  const first = script.steps[0];
  const early = first === undefined ? undefined : earlyError('google', first, request.model);
  if (early) return early;

  const usageStep = script.steps.find((step) => step.type === 'usage');
  const usageMetadata =
    usageStep === undefined
      ? undefined
      : {
          promptTokenCount: usageStep.inputTokens,
          candidatesTokenCount: usageStep.outputTokens - (usageStep.reasoningTokens ?? 0),
          thoughtsTokenCount: usageStep.reasoningTokens,
          cachedContentTokenCount: usageStep.cachedInputTokens,
          totalTokenCount: usageStep.inputTokens + usageStep.outputTokens,
        };
  // Gemini separates events with CRLF pairs.
  const event = (data: Record<string, unknown>): Frame =>
    dataFrame(
      `data: ${JSON.stringify({ ...data, modelVersion: request.model, responseId: `standin${request.id}` })}\r\n\r\n`,
    );
  const parts = (value: unknown[], extra: Record<string, unknown> = {}) =>
    event({ candidates: [{ content: { role: 'model', parts: value }, index: 0, ...extra }] });

  const frames: Frame[] = [];
  let sawContent = false;
  for (const step of script.steps) {
    switch (step.type) {
      case 'text':
        frames.push(parts([{ text: step.text }]));
        sawContent = true;
        break;
      case 'reasoning':
        frames.push(parts([{ text: step.text, thought: true }]));
        break;
      case 'reasoning-end':
        if (step.signature !== undefined) {
          frames.push(parts([{ text: '', thought: true, thoughtSignature: step.signature }]));
        }
        break;
      case 'redacted-reasoning':
        break;
      case 'tool-calls':
        frames.push(
          parts(
            step.calls.map((call) => ({
              functionCall: {
                id: call.id,
                name: call.name,
                args: JSON.parse(call.arguments) as unknown,
              },
              ...(call.signature === undefined ? {} : { thoughtSignature: call.signature }),
            })),
          ),
        );
        sawContent = true;
        break;
      case 'usage':
        break;
      case 'finish':
        frames.push(
          event({
            candidates: [
              {
                content: { role: 'model', parts: [{ text: '' }] },
                finishReason: FINISH_REASONS[step.reason],
                index: 0,
                ...(step.reason === 'content_filter' ? { safetyRatings: SAFETY_RATINGS } : {}),
              },
            ],
            ...(usageMetadata ? { usageMetadata } : {}),
          }),
        );
        break;
      case 'fail':
        if (step.kind === 'content_filter') {
          frames.push(
            sawContent
              ? event({
                  candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: SAFETY_RATINGS }],
                  ...(usageMetadata ? { usageMetadata } : {}),
                })
              : event({
                  promptFeedback: { blockReason: 'SAFETY', safetyRatings: SAFETY_RATINGS },
                  usageMetadata: {
                    promptTokenCount: usageStep?.inputTokens ?? 8,
                    totalTokenCount: 8,
                  },
                }),
          );
          break;
        }
        frames.push(
          dataFrame(
            `data: ${vendorError('google', step.kind, { model: request.model }).body}\r\n\r\n`,
          ),
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
  return { type: 'stream', frames };
}
