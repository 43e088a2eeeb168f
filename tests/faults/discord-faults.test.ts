/**
 * Fault suite, Discord rows: writes refused or failing, the message being edited
 * deleted, the gateway closing mid-reply, 429 storms — injected by the loopback Discord while
 * the real bot process streams a reply.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createGate, type Gate } from '../support/llm-stand-in/gate.ts';
import { describeSeen, faultRow, type RowOutcome } from './support/fault-row.ts';
import { FaultWorld } from './support/fault-world.ts';
import type { TriggerRecord } from './support/turn-accounting.ts';

const FIRST_BLOCK = 'Here is the first paragraph of my answer.';
const REST_OF_REPLY = 'And here is the rest of it, after the fault.';
const MESSAGES = '/channels/:channelId/messages';
const MESSAGE = '/channels/:channelId/messages/:messageId';

describe('Discord faults', () => {
  let world: FaultWorld;
  beforeAll(async () => {
    world = await FaultWorld.start();
  });
  afterAll(() => world?.dispose());

  /** A reply whose first block is on screen and whose rest waits for `gate`. */
  async function replyInFlight(channelId: string): Promise<{ trigger: TriggerRecord; gate: Gate }> {
    const gate = createGate();
    world.harness.llm.enqueue({
      steps: [
        { type: 'text', text: `${FIRST_BLOCK}\n\n` },
        { type: 'hold', gate },
        { type: 'text', text: REST_OF_REPLY },
        { type: 'finish', reason: 'stop' },
      ],
    });
    const [alice] = world.members;
    const trigger = world.mention({ channelId, authorId: alice?.id ?? '', text: 'explain it all' });
    await world.until(() => world.seen(trigger));
    return { trigger, gate };
  }

  /** Lets the reply finish, waits for the turn to end, lifts the fault, measures. */
  async function finishRow(
    channelId: string,
    trigger: TriggerRecord,
    gate: Gate,
  ): Promise<RowOutcome> {
    gate.release();
    await world.until(() => world.turnFinished(trigger));
    world.discord.faults.clear();
    const recoveryMs = await world.nextMentionAnswered(channelId, Date.now());
    const measurement = await world.measure([trigger], [channelId], {
      modelTexts: [`${FIRST_BLOCK}\n\n${REST_OF_REPLY}`],
    });
    return { runs: 1, measurement, memberSaw: describeSeen(measurement.verdicts), recoveryMs };
  }

  // In messages mode every block after the first is a POST; in edit mode, a PATCH.
  {
    faultRow({
      fault: 'Discord: 500 on message POST (messages mode)',
      run: async () => {
        const channelId = world.channel('post-500');
        const { trigger, gate } = await replyInFlight(channelId);
        // More 500s than discord.js retries one request (3 retries).
        world.discord.faults.failRoute({ method: 'POST', route: MESSAGES, status: 500, times: 4 });
        return finishRow(channelId, trigger, gate);
      },
    });

    faultRow({
      fault: 'Discord: 403 on message POST (messages mode)',
      run: async () => {
        const channelId = world.channel('post-403');
        const { trigger, gate } = await replyInFlight(channelId);
        world.discord.faults.forbidRoute({ method: 'POST', route: MESSAGES, times: 1 });
        return finishRow(channelId, trigger, gate);
      },
    });
  }

  faultRow({
    fault: 'Discord: 500 on message PATCH (edit mode)',
    run: async () => {
      const channelId = world.channel('patch-500', { delivery: 'edit' });
      const { trigger, gate } = await replyInFlight(channelId);
      world.discord.faults.failRoute({ method: 'PATCH', route: MESSAGE, status: 500, times: 4 });
      return finishRow(channelId, trigger, gate);
    },
  });

  faultRow({
    fault: 'Discord: 403 on message PATCH (edit mode)',
    run: async () => {
      const channelId = world.channel('patch-403', { delivery: 'edit' });
      const { trigger, gate } = await replyInFlight(channelId);
      world.discord.faults.forbidRoute({ method: 'PATCH', route: MESSAGE, times: 1 });
      return finishRow(channelId, trigger, gate);
    },
  });

  faultRow({
    fault: 'Discord: the message being edited is deleted',
    run: async () => {
      const channelId = world.channel('edited-deleted', { delivery: 'edit' });
      const { trigger, gate } = await replyInFlight(channelId);
      const [alice] = world.members;
      const growing = world.botMessages(channelId).at(-1);
      if (growing !== undefined) {
        world.discord.members.deleteMessage({ actorId: alice?.id ?? '', messageId: growing.id });
      }
      return finishRow(channelId, trigger, gate);
    },
  });

  faultRow({
    fault: 'Discord: gateway closes mid-reply (4000, resume)',
    run: async () => {
      const channelId = world.channel('gateway-close');
      const { trigger, gate } = await replyInFlight(channelId);
      const resumed = world.discord.waits.gateway('resumed');
      world.discord.gateway.closeConnections(4000);
      await resumed;
      return finishRow(channelId, trigger, gate);
    },
  });

  faultRow({
    fault: 'Discord: 429 storm on message writes',
    run: async () => {
      const channelId = world.channel('storm');
      const { trigger, gate } = await replyInFlight(channelId);
      world.discord.faults.rateLimitStorm({
        route: /^\/channels\/\d+\/messages(\/\d+)?$/,
        retryAfterMs: 1_000,
        scope: 'shared',
        times: 6,
      });
      return finishRow(channelId, trigger, gate);
    },
  });
});
