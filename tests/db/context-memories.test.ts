/**
 * The memories a turn's context carries, read on every turn: the scope's server memories and
 * the author's own personal ones, each bounded and oldest first, in one statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMemory, memoriesForContext, type MemoryOwner } from '../../src/db/memory-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const GUILD = 'guild-1';
const OTHER_GUILD = 'guild-2';
const ALICE = 'alice';
const BOB = 'bob';

describe.each(testBackends())('context memories on $name', (backend) => {
  let database: TestDatabase;
  const statements: string[] = [];

  beforeAll(async () => {
    database = await backend.open({ onQuery: (sample) => statements.push(sample.operation) });
    await database.migrate();
    const add = (scopeId: string, owner: MemoryOwner, content: string) =>
      addMemory(database.db, {
        scope: { id: scopeId, kind: 'guild' },
        owner,
        authorId: owner.kind === 'user' ? owner.ownerId : ALICE,
        content,
        limit: 50,
      });
    // Interleaved, so neither owner's memories are stored in one run.
    for (let index = 0; index < 4; index += 1) {
      await add(GUILD, { kind: 'server' }, `server fact ${index}`);
      await add(GUILD, { kind: 'user', ownerId: ALICE }, `alice fact ${index}`);
      await add(GUILD, { kind: 'user', ownerId: BOB }, `bob fact ${index}`);
    }
    await add(OTHER_GUILD, { kind: 'server' }, 'another server');
    await add(OTHER_GUILD, { kind: 'user', ownerId: ALICE }, 'alice elsewhere');
  });
  afterAll(() => database.dispose());

  it("gives the scope's server memories and only the author's personal ones, oldest first", async () => {
    const context = await memoriesForContext(database.db, { scopeId: GUILD, authorId: ALICE });
    expect(context.server.map((memory) => memory.content)).toEqual([
      'server fact 0',
      'server fact 1',
      'server fact 2',
      'server fact 3',
    ]);
    expect(context.personal.map((memory) => memory.content)).toEqual([
      'alice fact 0',
      'alice fact 1',
      'alice fact 2',
      'alice fact 3',
    ]);
    expect(context.personal.every((memory) => memory.ownerId === ALICE)).toBe(true);
    expect(context.server.every((memory) => memory.ownerId === undefined)).toBe(true);
  });

  it('bounds each kind on its own: the oldest of each', async () => {
    const context = await memoriesForContext(database.db, {
      scopeId: GUILD,
      authorId: BOB,
      limitPerKind: 2,
    });
    expect(context.server.map((memory) => memory.content)).toEqual([
      'server fact 0',
      'server fact 1',
    ]);
    expect(context.personal.map((memory) => memory.content)).toEqual(['bob fact 0', 'bob fact 1']);
  });

  it('reads both kinds in one statement', async () => {
    const before = statements.length;
    const context = await memoriesForContext(database.db, {
      scopeId: OTHER_GUILD,
      authorId: ALICE,
    });
    expect(statements.slice(before)).toHaveLength(1);
    expect(context.server.map((memory) => memory.content)).toEqual(['another server']);
    expect(context.personal.map((memory) => memory.content)).toEqual(['alice elsewhere']);
  });
});
