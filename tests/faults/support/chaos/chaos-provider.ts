/**
 * The chaos run's model: answers every request on the stand-in with a reply of its own
 * ("Answer A17, …": findable in the channel and in later contexts), records what each call
 * carried and what became of it, and applies the provider faults the schedule arms (errors,
 * streams dropped after their first part, streams stalled mid-reply).
 */
import { createGate } from '../../../support/llm-stand-in/gate.ts';
import type { LlmStandIn } from '../../../support/llm-stand-in/llm-stand-in.ts';
import {
  asArray,
  asObject,
  type RecordedRequest,
} from '../../../support/llm-stand-in/recorded-request.ts';
import { textScript, type Script, type ScriptStep } from '../../../support/llm-stand-in/script.ts';
import type { ModelCall } from './oracle.ts';
import type { PlannedFault } from './schedule.ts';

type ProviderFault = Extract<
  PlannedFault,
  { kind: 'provider-errors' | 'provider-drops' | 'provider-stalls' }
>;

const TOKEN = /\bQ\d{4}z[0-9a-z]+\b/g;

/** A message's text: a string, or OpenAI content parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map(asObject)
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

/** The conversation an OpenAI chat request carries: new user text, and the assistant's. */
export function readConversation(body: unknown): { newTokens: string[]; assistantTexts: string[] } {
  const messages = asArray(asObject(body)['messages']).map(asObject);
  const lastAssistant = messages.findLastIndex((message) => message['role'] === 'assistant');
  const newText = messages
    .slice(lastAssistant + 1)
    .filter((message) => message['role'] === 'user')
    .map((message) => textOf(message['content']))
    .join('\n');
  return {
    newTokens: [...new Set(newText.match(TOKEN) ?? [])],
    assistantTexts: messages
      .filter((message) => message['role'] === 'assistant')
      .map((message) => textOf(message['content'])),
  };
}

export class ChaosProvider {
  readonly calls: ModelCall[] = [];
  readonly #armed: Array<{ fault: ProviderFault; remaining: number }> = [];
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(llm: LlmStandIn) {
    llm.handle((request) => this.#answer(request));
  }

  arm(fault: ProviderFault): void {
    this.#armed.push({ fault, remaining: fault.requests });
  }

  /** Disarms every fault and lets every stalled stream go on. */
  heal(): void {
    this.#armed.length = 0;
  }

  dispose(): void {
    for (const timer of this.#timers) clearTimeout(timer);
  }

  #answer(request: RecordedRequest): Script {
    const { newTokens, assistantTexts } = readConversation(request.body);
    // A call that carries no mention (a memory note), or the channel's rolling summary (which
    // carries old mentions as material, not as questions), is answered plainly: not a turn.
    if (newTokens.length === 0 || isSummaryRequest(request)) return textScript('Okay.');
    const reply = `Answer A${request.id}, all noted and settled.`;
    const armed = this.#armed.find((entry) => entry.remaining > 0);
    if (armed !== undefined) armed.remaining -= 1;
    const { script, fate, complete } = this.#script(reply, armed?.fault);
    this.calls.push({
      id: request.id,
      arrivedAt: Date.now(),
      newTokens,
      assistantTexts,
      reply: complete ? reply : undefined,
      streamed: complete ? reply : fate === 'dropped' ? firstPart(reply) : '',
      fate,
    });
    return script;
  }

  #script(
    reply: string,
    fault: ProviderFault | undefined,
  ): { script: Script; fate: string; complete: boolean } {
    const ending: ScriptStep[] = [
      { type: 'usage', inputTokens: 20, outputTokens: 8 },
      { type: 'finish', reason: 'stop' },
    ];
    if (fault === undefined) return { script: textScript(reply), fate: 'answered', complete: true };
    if (fault.kind === 'provider-errors') {
      const step: ScriptStep =
        fault.failure === 'server'
          ? {
              type: 'http-error',
              status: 500,
              body: JSON.stringify({ error: { message: 'down' } }),
            }
          : fault.failure === 'rate_limit'
            ? { type: 'fail', kind: 'rate_limit', retryAfterSeconds: 1 }
            : { type: 'fail', kind: 'overloaded' };
      return { script: { steps: [step] }, fate: `failed ${fault.failure}`, complete: false };
    }
    if (fault.kind === 'provider-drops') {
      const steps: ScriptStep[] = [{ type: 'text', text: firstPart(reply) }, { type: 'drop' }];
      return { script: { steps }, fate: 'dropped', complete: false };
    }
    const gate = createGate();
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      gate.release();
    }, fault.stallMs);
    this.#timers.add(timer);
    const steps: ScriptStep[] = [
      { type: 'text', text: firstPart(reply) },
      { type: 'hold', gate },
      { type: 'text', text: reply.slice(firstPart(reply).length) },
      ...ending,
    ];
    return { script: { steps }, fate: `stalled ${fault.stallMs} ms`, complete: true };
  }
}

/** "Answer A17, " — what a dropped or stalled stream has sent before the fault. */
function firstPart(reply: string): string {
  return reply.slice(0, reply.indexOf(',') + 2);
}

/** The rolling summary's model call (bot/context/summary/summary-prompt.md), not a turn. */
function isSummaryRequest(request: RecordedRequest): boolean {
  return request.systemText.includes('rolling summary of one Discord channel');
}
