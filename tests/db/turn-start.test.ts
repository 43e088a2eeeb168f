/**
 * A turn's first read: the channel's reset marker, its rolling summary, the memories of the
 * scope and the author and the stored turns, in one statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCharacter } from '../../src/db/character-repository.ts';
import { addMemory, memoriesForContext } from '../../src/db/memory-repository.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { saveSummary } from '../../src/db/summary-repository.ts';
import { turnStartOf, turnStartStatement } from '../../src/db/turn-start-repository.ts';
import { setResetMarker } from '../../src/db/turn-repository.ts';
import { contextTurnsSinceReset } from '../../src/db/context-turn-repository.ts';
import { conversationTurns } from '../../src/db/schema.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '143456789012345680';
const ALICE = 'alice';
const BOB = 'bob';

describe.each(testBackends())('the turn start on $name', (backend) => {
  let database: TestDatabase;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await backend.open({ onQuery: (sample) => statements.push(sample.operation) });
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  it('reads the reset marker and the summary since it, in one statement', async () => {
    const channelId = '243456789012345680';
    const start = async () => {
      const before = statements.length;
      const read = await turnStartOf(database.db, { channelId, scopeId: SCOPE, authorId: ALICE });
      expect(statements.length - before).toBe(1);
      return { resetAt: read.resetAt, summary: read.summary };
    };
    expect(await start()).toEqual({ resetAt: undefined, summary: undefined });
    await saveSummary(database.db, {
      channelId,
      scopeId: SCOPE,
      content: 'so far',
      coveredUntil: new Date('2026-01-01T00:00:00Z'),
      coveredTurns: 20,
      previousCoveredUntil: undefined,
    });
    expect(await start()).toEqual({ resetAt: undefined, summary: 'so far' });
    const resetAt = new Date('2026-01-02T03:04:05.678Z');
    await setResetMarker(database.db, { channelId, scopeId: SCOPE, resetBy: '1', resetAt });
    expect(await start()).toEqual({ resetAt, summary: undefined });
  });

  it('brings the stored turns contextTurnsSinceReset reads, in the same statement', async () => {
    const channelId = '243456789012345690';
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 3, 10, minute));
    await database.db.insert(conversationTurns).values(
      Array.from({ length: 7 }, (_, index) => ({
        id: `00000000-0000-4000-8000-00000000000${index}`,
        scopeId: SCOPE,
        channelId,
        role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
        authorId: index % 2 === 0 ? ALICE : 'bot',
        content: `turn ${index}`,
        status: 'complete' as const,
        importance: index === 1 ? 0.9 : 0.5,
        createdAt: at(index),
      })),
    );
    await setResetMarker(database.db, { channelId, scopeId: SCOPE, resetBy: '1', resetAt: at(0) });
    const limits = { recent: 3, important: 2, pinned: 1 };
    const before = statements.length;
    const read = await turnStartOf(database.db, {
      channelId,
      scopeId: SCOPE,
      authorId: ALICE,
      turns: limits,
    });
    expect(statements.length - before).toBe(1);
    // The newest three and the important one, since the reset (turn 0 is at the marker).
    expect(read.turns.map((turn) => turn.content)).toEqual([
      'turn 1',
      'turn 4',
      'turn 5',
      'turn 6',
    ]);
    expect(read.turns).toEqual(await contextTurnsSinceReset(database.db, channelId, limits));
    const without = await turnStartOf(database.db, { channelId, scopeId: SCOPE, authorId: ALICE });
    expect(without.turns).toEqual([]);
  });

  it('brings the same memories memoriesForContext reads, in the same order', async () => {
    const add = (owner: string, content: string) =>
      addMemory(database.db, {
        scope: { id: SCOPE, kind: 'guild' },
        owner: owner === 'server' ? { kind: 'server' } : { kind: 'user', ownerId: owner },
        authorId: owner === 'server' ? ALICE : owner,
        content,
        limit: 50,
      });
    const channelId = '243456789012345681';
    const empty = await turnStartOf(database.db, { channelId, scopeId: SCOPE, authorId: ALICE });
    expect(empty.memories).toEqual({ server: [], personal: [], character: [] });
    for (let index = 0; index < 3; index += 1) {
      await add('server', `server fact ${index}`);
      await add(ALICE, `alice fact ${index}`);
      await add(BOB, `bob fact ${index}`);
    }
    const options = { scopeId: SCOPE, authorId: ALICE, limitPerKind: 2 };
    const read = await turnStartOf(database.db, { channelId, ...options });
    expect(read.memories).toEqual(await memoriesForContext(database.db, options));
    expect(read.memories.server.map((memory) => memory.content)).toEqual([
      'server fact 0',
      'server fact 1',
    ]);
    expect(read.memories.personal.map((memory) => memory.content)).toEqual([
      'alice fact 0',
      'alice fact 1',
    ]);
  });

  it('brings the speaking character’s own memories of the author, apart from the bot’s', async () => {
    const saved = await createCharacter(database.db, {
      scope: { id: SCOPE, kind: 'guild' },
      createdBy: ALICE,
      fields: {
        name: 'Mira',
        avatarUrl: undefined,
        persona: 'Mira reads cards.',
        greeting: undefined,
        triggerWords: [],
        provider: undefined,
        model: undefined,
        temperature: undefined,
        humanizerDegree: undefined,
        language: undefined,
        card: undefined,
      },
      limit: 50,
    });
    if (saved.status !== 'saved') throw new Error('could not make Mira');
    const characterId = saved.character.id;
    await addMemory(database.db, {
      scope: { id: SCOPE, kind: 'guild' },
      owner: { kind: 'user', ownerId: BOB, characterId },
      authorId: BOB,
      content: 'drew the tower card',
      limit: 50,
    });
    const options = { scopeId: SCOPE, authorId: BOB, characterId };
    const read = await turnStartOf(database.db, { channelId: '243456789012345682', ...options });
    expect(read.memories).toEqual(await memoriesForContext(database.db, options));
    expect(read.memories.character.map((memory) => memory.content)).toEqual([
      'drew the tower card',
    ]);
    expect(read.memories.personal.map((memory) => memory.content)).not.toContain(
      'drew the tower card',
    );
    const asBot = await turnStartOf(database.db, {
      channelId: '243456789012345682',
      scopeId: SCOPE,
      authorId: BOB,
    });
    expect(asBot.memories.character).toEqual([]);
  });

  it('builds its text once per shape and sends each call its own values: as built afresh', async () => {
    const channels = ['243456789012345683', '243456789012345684'];
    for (const [index, channelId] of channels.entries()) {
      await saveSummary(database.db, {
        channelId,
        scopeId: SCOPE,
        content: `summary of channel ${index}`,
        coveredUntil: new Date('2026-01-01T00:00:00Z'),
        coveredTurns: 20,
        previousCoveredUntil: undefined,
      });
    }
    const shapes = [
      { scopeId: SCOPE, authorId: ALICE },
      { scopeId: SCOPE, authorId: BOB, limitPerKind: 1 },
      { scopeId: SCOPE, authorId: ALICE, turns: { recent: 2, important: 1, pinned: 1 } },
      { scopeId: SCOPE, authorId: BOB, characterId: '00000000-0000-4000-8000-0000000000ff' },
    ];
    // Twice round, alternating channels: every shape is sent again with other values.
    for (let round = 0; round < 2; round += 1) {
      for (const [index, shape] of shapes.entries()) {
        const channelId = channels[(index + round) % 2] ?? '';
        const options = { channelId, ...shape };
        const read = await turnStartOf(database.db, options);
        const [fresh] = (
          (await database.db.execute(turnStartStatement(database.db, options))) as {
            rows: { summary: string | null }[];
          }
        ).rows;
        expect(read.summary).toBe(`summary of channel ${(index + round) % 2}`);
        expect(read.summary).toBe(fresh?.summary);
        expect(read.memories).toEqual(await memoriesForContext(database.db, shape));
      }
    }
  });
});
