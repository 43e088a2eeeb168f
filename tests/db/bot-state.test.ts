import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBotState, writeBotState } from '../../src/db/bot-state-repository.ts';
import {
  claimMessage,
  pruneClaims,
  settleAnswered,
  unsettledClaims,
} from '../../src/db/claim-repository.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { failAbandonedTurns } from '../../src/db/turn-recovery.ts';
import { recentTurns, startAssistantTurn } from '../../src/db/turn-repository.ts';
import { addUsage, dailySpend } from '../../src/db/usage-repository.ts';
import { NO_USAGE } from '../support/usage-entries.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '123456789012345678';

describe.each(testBackends())('bot state on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  it('lets exactly one of many concurrent claimers answer a message', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        claimMessage(database.db, { key: 'message-1', instanceId: `instance-${index}` }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await claimMessage(database.db, { key: 'message-2', instanceId: 'instance-0' })).toBe(
      true,
    );
    expect(await pruneClaims(database.db, new Date(Date.now() + 60_000))).toBe(2);
    expect(await claimMessage(database.db, { key: 'message-1', instanceId: 'instance-0' })).toBe(
      true,
    );
  });

  it('records messages answered in passing as settled, claimed or not, so nobody answers them again', async () => {
    const channelId = '923456789012345678';
    const owed = { key: '913456789012345671', instanceId: 'released', channelId };
    await claimMessage(database.db, owed);
    await settleAnswered(database.db, {
      keys: [owed.key, '913456789012345672'],
      channelId,
      instanceId: 'instance-0',
    });
    const unsettled = await unsettledClaims(database.db, new Date(0));
    expect(unsettled.map((claim) => claim.messageId)).not.toContain(owed.key);
    // Never claimed before (heard again by a backfill after a restart, say): nobody may claim it.
    const again = { key: '913456789012345672', instanceId: 'instance-1', channelId };
    expect(await claimMessage(database.db, again)).toBe(false);
    expect(await claimMessage(database.db, { ...again, attempt: 'a-1' })).toBe(false);
  });

  it('gives a retried claiming attempt its own claim back, and nobody else (a reply lost to an outage)', async () => {
    const claim = { key: 'message-3', instanceId: 'instance-0', channelId: '1', attempt: 'a-1' };
    expect(await claimMessage(database.db, claim)).toBe(true);
    // The first try committed but its reply never came: the retry of the same attempt wins.
    expect(await claimMessage(database.db, claim)).toBe(true);
    // The same message heard again (a backfill, a duplicate event) is a new attempt: no.
    expect(await claimMessage(database.db, { ...claim, attempt: 'a-2' })).toBe(false);
    expect(await claimMessage(database.db, { key: 'message-3', instanceId: 'instance-0' })).toBe(
      false,
    );
    expect(await claimMessage(database.db, { ...claim, instanceId: 'instance-1' })).toBe(false);
  });

  it('keeps one value per bot state key, overwritten in place', async () => {
    expect(await readBotState(database.db, 'commands:app:global')).toBeUndefined();
    await writeBotState(database.db, 'commands:app:global', 'hash-1');
    await writeBotState(database.db, 'commands:app:global', 'hash-2');
    await writeBotState(database.db, 'commands:app:guild:1', 'hash-3');
    expect(await readBotState(database.db, 'commands:app:global')).toBe('hash-2');
    expect(await readBotState(database.db, 'commands:app:guild:1')).toBe('hash-3');
  });

  it('adds daily token usage per scope and UTC day', async () => {
    const at = new Date('2026-11-22T23:59:00Z');
    await addUsage(database.db, {
      ...NO_USAGE,
      scopeId: SCOPE,
      at,
      inputTokens: 100,
      outputTokens: 20,
    });
    await Promise.all([
      addUsage(database.db, { ...NO_USAGE, scopeId: SCOPE, at, inputTokens: 1, outputTokens: 2 }),
      addUsage(database.db, { ...NO_USAGE, scopeId: SCOPE, at, inputTokens: 3, outputTokens: 4 }),
    ]);
    expect((await dailySpend(database.db, SCOPE, at)).tokens).toBe(130);
    expect((await dailySpend(database.db, SCOPE, new Date('2026-11-23T00:00:01Z'))).tokens).toBe(0);
  });

  it('knows which processes are alive, and fails only the streaming turns of dead ones', async () => {
    const release = await database.liveness.hold('alive-instance');
    expect(await database.liveness.isAlive('alive-instance')).toBe(true);
    expect(await database.liveness.isAlive('dead-instance')).toBe(false);
    const start = (instanceId: string | undefined) => {
      const id = randomUUID();
      return startAssistantTurn(database.db, {
        id,
        scopeId: SCOPE,
        channelId: 'recovery-channel',
        authorId: 'bot',
        authorName: 'bot',
        triggerMessageId: id,
        ...(instanceId === undefined ? {} : { instanceId }),
      }).then(() => id);
    };
    const live = await start('alive-instance');
    const orphan = await start('dead-instance');
    const ownerless = await start(undefined);
    expect(await failAbandonedTurns(database.db, database.liveness)).toBe(2);
    const statuses = new Map(
      (await recentTurns(database.db, 'recovery-channel', { limit: 10 })).map((turn) => [
        turn.id,
        turn.status,
      ]),
    );
    expect(statuses.get(live)).toBe('streaming');
    expect(statuses.get(orphan)).toBe('failed');
    expect(statuses.get(ownerless)).toBe('failed');
    await release();
    expect(await database.liveness.isAlive('alive-instance')).toBe(false);
    expect(await failAbandonedTurns(database.db, database.liveness)).toBe(1);
  });
});
