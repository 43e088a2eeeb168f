/**
 * Fault suite, provider rows: the model provider fails in every way the LLM
 * stand-in can render on the wire; the real bot process must answer, or tell the member.
 */
import type { APIMessage } from 'discord-api-types/v10';
import { afterAll, beforeAll, describe } from 'vitest';
import { createGate } from '../support/llm-stand-in/gate.ts';
import type { Script } from '../support/llm-stand-in/script.ts';
import { describeSeen, faultRow } from './support/fault-row.ts';
import { FaultWorld, NEXT_MENTION_ANSWER } from './support/fault-world.ts';
import type { TriggerRecord } from './support/turn-accounting.ts';

const FIRST_PART = 'Here is the first part of a long answer.';
const SERVER_ERROR: Script = {
  steps: [
    {
      type: 'http-error',
      status: 500,
      body: JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } }),
    },
  ],
};

describe('provider faults', () => {
  let world: FaultWorld;
  beforeAll(async () => {
    world = await FaultWorld.start();
  });
  afterAll(() => world?.dispose());

  /** Mentions once per member, one after the other, each awaited until the bot shows something. */
  async function mentionEach(channelId: string, text: string): Promise<TriggerRecord[]> {
    const triggers: TriggerRecord[] = [];
    for (const member of world.members) {
      const trigger = world.mention({ channelId, authorId: member.id, text });
      triggers.push(trigger);
      await world.until(() => world.turnFinished(trigger) && world.seen(trigger));
    }
    return triggers;
  }

  faultRow({
    fault: 'provider: HTTP 500 every time',
    run: async () => {
      const channelId = world.channel('provider-500');
      world.harness.llm.handle(() => SERVER_ERROR);
      const triggers = await mentionEach(channelId, 'what is the capital of France?');
      world.healProvider();
      const recoveryMs = await world.nextMentionAnswered(channelId, Date.now());
      const measurement = await world.measure(triggers, [channelId]);
      return {
        runs: triggers.length,
        measurement,
        memberSaw: describeSeen(measurement.verdicts),
        recoveryMs,
      };
    },
  });

  faultRow({
    fault: 'provider: 429 with retry-after 1 s',
    run: async () => {
      const channelId = world.channel('provider-429');
      for (const _member of world.members) {
        world.harness.llm.enqueue(
          { steps: [{ type: 'fail', kind: 'rate_limit', retryAfterSeconds: 1 }] },
          {
            steps: [
              { type: 'text', text: 'Answered after the rate limit.' },
              { type: 'finish', reason: 'stop' },
            ],
          },
        );
      }
      const triggers = await mentionEach(channelId, 'are you there?');
      const recoveryMs = await world.nextMentionAnswered(channelId, Date.now());
      const measurement = await world.measure(triggers, [channelId], {
        modelTexts: ['Answered after the rate limit.'],
      });
      return {
        runs: triggers.length,
        measurement,
        memberSaw: describeSeen(measurement.verdicts),
        recoveryMs,
      };
    },
  });

  for (const cut of [
    { fault: 'provider: connection dropped mid-stream', step: { type: 'drop' } },
    { fault: 'provider: malformed SSE mid-stream', step: { type: 'malformed' } },
  ] as const) {
    faultRow({
      fault: cut.fault,
      run: async () => {
        const channelId = world.channel(
          cut.fault.includes('drop') ? 'provider-drop' : 'provider-malformed',
        );
        for (const _member of world.members) {
          world.harness.llm.enqueue({
            steps: [{ type: 'text', text: `${FIRST_PART}\n\n` }, cut.step],
          });
        }
        const triggers = await mentionEach(channelId, 'tell me a long story');
        const recoveryMs = await world.nextMentionAnswered(channelId, Date.now());
        const measurement = await world.measure(triggers, [channelId], {
          modelTexts: [FIRST_PART],
        });
        return {
          runs: triggers.length,
          measurement,
          memberSaw: describeSeen(measurement.verdicts),
          recoveryMs,
        };
      },
    });
  }

  faultRow({
    // The bot's real 60 s inactivity watchdog: no test-only knob in the process's contract.
    fault: 'provider: stream stalls mid-reply (watchdog, then Retry)',
    run: async () => {
      const channelId = world.channel('provider-stall');
      const gate = createGate();
      world.harness.llm.enqueue({
        steps: [
          { type: 'text', text: 'Let me think about that…\n\n' },
          { type: 'hold', gate },
        ],
      });
      const [alice] = world.members;
      const trigger = world.mention({
        channelId,
        authorId: alice?.id ?? '',
        text: 'a hard question',
      });
      const hasRetry = (message: APIMessage) =>
        JSON.stringify(message.components ?? []).includes(`retry:${trigger.id}`);
      const told = await world.until(() => world.seen(trigger, hasRetry), 180_000);
      gate.release();
      let recoveryMs: number | undefined;
      if (told) {
        const notice = world.botMessages(channelId).find((message) => hasRetry(message));
        const endedAt = Date.now();
        world.discord.pressButton({
          userId: alice?.id ?? '',
          messageId: notice?.id ?? '',
          customId: `retry:${trigger.id}`,
        });
        const retried = await world.until(() =>
          world.seen(trigger, (message) => message.content === NEXT_MENTION_ANSWER),
        );
        recoveryMs = retried ? Date.now() - endedAt : undefined;
      }
      const measurement = await world.measure([trigger], [channelId], {
        modelTexts: ['Let me think about that…'],
      });
      const next = await world.nextMentionAnswered(channelId, Date.now());
      return {
        runs: 1,
        measurement,
        memberSaw: `${told ? 'notice + Retry' : 'no notice'}; Retry ${recoveryMs === undefined ? 'did not answer' : 'answered'}`,
        recoveryMs: next === undefined ? undefined : recoveryMs,
      };
    },
  });
});
