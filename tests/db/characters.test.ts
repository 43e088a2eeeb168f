/** A server's characters and who is on a channel's stage, on PGlite and PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CharacterFields } from '../../src/core/character.ts';
import {
  createCharacter,
  findCharacter,
  listCharacters,
  removeCharacter,
  updateCharacter,
} from '../../src/db/character-repository.ts';
import { addToScene, loadScene, removeFromScene } from '../../src/db/scene-repository.ts';
import { addUsage, characterUsage, usageSummary } from '../../src/db/usage-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const GUILD = { id: '163456789012345678', kind: 'guild' as const };
const OTHER_GUILD = { id: '163456789012345679', kind: 'guild' as const };
const CHANNEL = '263456789012345678';
const MEMBER = '363456789012345678';

function fields(name: string, extra: Partial<CharacterFields> = {}): CharacterFields {
  return {
    name,
    avatarUrl: undefined,
    persona: `${name} is a character.`,
    greeting: undefined,
    triggerWords: [],
    provider: undefined,
    model: undefined,
    temperature: undefined,
    humanizerDegree: undefined,
    language: undefined,
    card: undefined,
    ...extra,
  };
}

describe.each(testBackends())('characters on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
  }, 180_000);
  afterAll(() => database.dispose());

  it('stores a character with every field and finds it by its name in any case', async () => {
    const { db } = database;
    const saved = await createCharacter(db, {
      scope: GUILD,
      createdBy: MEMBER,
      limit: 10,
      fields: fields('Alice', {
        avatarUrl: 'https://example.test/alice.png',
        greeting: 'Welcome to the inn!',
        triggerWords: ['innkeeper'],
        provider: 'openai',
        model: 'gpt-4o-mini',
        temperature: 0.7,
        humanizerDegree: 2,
        language: 'ja',
        card: { scenario: 'An inn at a crossroads.', tags: ['fantasy'] },
      }),
    });
    expect(saved.status).toBe('saved');
    const found = await findCharacter(db, GUILD.id, '  ALICE ');
    expect(found).toMatchObject({
      name: 'Alice',
      avatarUrl: 'https://example.test/alice.png',
      triggerWords: ['innkeeper'],
      provider: 'openai',
      temperature: 0.7,
      humanizerDegree: 2,
      card: { scenario: 'An inn at a crossroads.', tags: ['fantasy'] },
      createdBy: MEMBER,
    });
    expect(await findCharacter(db, OTHER_GUILD.id, 'Alice')).toBeUndefined();
  });

  it('refuses a second character of the same name in a server, not in another server', async () => {
    const { db } = database;
    await createCharacter(db, {
      scope: GUILD,
      createdBy: MEMBER,
      limit: 10,
      fields: fields('Bob'),
    });
    const again = await createCharacter(db, {
      scope: GUILD,
      createdBy: MEMBER,
      limit: 10,
      fields: fields('bob'),
    });
    expect(again).toEqual({ status: 'name-taken' });
    const elsewhere = await createCharacter(db, {
      scope: OTHER_GUILD,
      createdBy: MEMBER,
      limit: 10,
      fields: fields('Bob'),
    });
    expect(elsewhere.status).toBe('saved');
  });

  it('stops at the server limit, even when two adds race', async () => {
    const { db } = database;
    const scope = { id: '163456789012345670', kind: 'guild' as const };
    const results = await Promise.all(
      ['One', 'Two', 'Three'].map((name) =>
        createCharacter(db, { scope, createdBy: MEMBER, limit: 2, fields: fields(name) }),
      ),
    );
    expect(results.filter((result) => result.status === 'saved')).toHaveLength(2);
    expect(results.filter((result) => result.status === 'full')).toHaveLength(1);
  });

  it('edits a character, refusing a rename onto another character', async () => {
    const { db } = database;
    const carol = await createCharacter(db, {
      scope: GUILD,
      createdBy: MEMBER,
      limit: 10,
      fields: fields('Carol'),
    });
    if (carol.status !== 'saved') throw new Error('expected Carol');
    const renamed = await updateCharacter(db, {
      scopeId: GUILD.id,
      id: carol.character.id,
      fields: fields('Caroline', { persona: 'A sailor.' }),
    });
    expect(renamed).toMatchObject({
      status: 'saved',
      character: { name: 'Caroline', persona: 'A sailor.' },
    });
    const clash = await updateCharacter(db, {
      scopeId: GUILD.id,
      id: carol.character.id,
      fields: fields('Bob'),
    });
    expect(clash).toEqual({ status: 'name-taken' });
    expect(
      await updateCharacter(db, {
        scopeId: OTHER_GUILD.id,
        id: carol.character.id,
        fields: fields('X'),
      }),
    ).toBeUndefined();
  });

  it('puts characters on a stage in turn order and takes them off with the character', async () => {
    const { db } = database;
    const dana = await createCharacter(db, {
      scope: GUILD,
      createdBy: MEMBER,
      limit: 10,
      fields: fields('Dana'),
    });
    const eve = await createCharacter(db, {
      scope: GUILD,
      createdBy: MEMBER,
      limit: 10,
      fields: fields('Eve'),
    });
    if (dana.status !== 'saved' || eve.status !== 'saved') throw new Error('expected both');
    expect(
      await addToScene(db, { channelId: CHANNEL, characterId: eve.character.id, limit: 2 }),
    ).toBe('added');
    expect(
      await addToScene(db, { channelId: CHANNEL, characterId: dana.character.id, limit: 2 }),
    ).toBe('added');
    expect(
      await addToScene(db, { channelId: CHANNEL, characterId: dana.character.id, limit: 2 }),
    ).toBe('already');
    const alice = await findCharacter(db, GUILD.id, 'Alice');
    expect(
      await addToScene(db, { channelId: CHANNEL, characterId: alice?.id ?? '', limit: 2 }),
    ).toBe('full');
    expect((await loadScene(db, CHANNEL)).map((character) => character.name)).toEqual([
      'Eve',
      'Dana',
    ]);
    expect(await removeFromScene(db, { channelId: CHANNEL, characterId: eve.character.id })).toBe(
      true,
    );
    expect(await removeFromScene(db, { channelId: CHANNEL, characterId: eve.character.id })).toBe(
      false,
    );
    expect(await removeCharacter(db, GUILD.id, 'dana')).toBe(true);
    expect(await removeCharacter(db, GUILD.id, 'dana')).toBe(false);
    expect(await loadScene(db, CHANNEL)).toEqual([]);
    expect((await listCharacters(db, GUILD.id)).map((character) => character.name)).toEqual([
      'Alice',
      'Bob',
      'Caroline',
      'Eve',
    ]);
  });

  it('sums what each character’s turns spent beside its member’s, and forgets a removed one', async () => {
    const { db } = database;
    const scope = { id: '163456789012345671', kind: 'guild' as const };
    const made = await Promise.all(
      ['Gwen', 'Hugo'].map((name) =>
        createCharacter(db, { scope, createdBy: MEMBER, limit: 10, fields: fields(name) }),
      ),
    );
    const [gwen, hugo] = made.map((result) => {
      if (result.status !== 'saved') throw new Error('expected a character');
      return result.character;
    });
    const at = new Date('2026-11-20T12:00:00Z');
    const call = {
      scopeId: scope.id,
      memberId: MEMBER,
      model: 'm',
      at,
      cachedInputTokens: 0,
      turns: 1,
    };
    await addUsage(db, {
      ...call,
      inputTokens: 10,
      outputTokens: 5,
      cost: 300,
      characterId: gwen?.id,
    });
    await addUsage(db, {
      ...call,
      inputTokens: 10,
      outputTokens: 5,
      cost: 300,
      characterId: gwen?.id,
    });
    await addUsage(db, {
      ...call,
      inputTokens: 1,
      outputTokens: 1,
      cost: 100,
      characterId: hugo?.id,
    });
    await addUsage(db, { ...call, inputTokens: 7, outputTokens: 7, cost: 50 });
    const days = { scopeId: scope.id, fromDay: '2026-11-01', toDay: '2026-11-30' };
    expect(await characterUsage(db, days)).toEqual([
      { name: 'Gwen', turns: 2, tokens: 30, cost: 600 },
      { name: 'Hugo', turns: 1, tokens: 2, cost: 100 },
    ]);
    const members = await usageSummary(db, days);
    expect(members.byMember).toMatchObject([{ memberId: MEMBER, turns: 4, cost: 750 }]);
    await removeCharacter(db, scope.id, 'Hugo');
    expect((await characterUsage(db, days)).map((row) => row.name)).toEqual(['Gwen']);
  });
});
