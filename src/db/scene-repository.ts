import { and, asc, eq, sql } from 'drizzle-orm';
import type { Character } from '../core/character.ts';
import { fromRow } from './character-repository.ts';
import type { Database } from './database.ts';
import { characters, sceneCharacters } from './schema.ts';

export type SceneAddResult = 'added' | 'already' | 'full';

/**
 * Puts a character on a channel's stage, after those already there (they take turns in this
 * order), unless the stage holds `limit` characters.
 */
export async function addToScene(
  db: Database,
  options: { channelId: string; characterId: string; limit: number },
): Promise<SceneAddResult> {
  return db.transaction(async (transaction) => {
    // Serialises adds to one channel's stage so positions and the limit hold across processes.
    await transaction.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`scene:${options.channelId}`}))`,
    );
    const present = await transaction
      .select({ characterId: sceneCharacters.characterId, position: sceneCharacters.position })
      .from(sceneCharacters)
      .where(eq(sceneCharacters.channelId, options.channelId));
    if (present.some((row) => row.characterId === options.characterId)) return 'already';
    if (present.length >= options.limit) return 'full';
    const position = Math.max(0, ...present.map((row) => row.position + 1));
    await transaction
      .insert(sceneCharacters)
      .values({ channelId: options.channelId, characterId: options.characterId, position });
    return 'added';
  });
}

/** Takes a character off a channel's stage; false when it was not there. */
export async function removeFromScene(
  db: Database,
  options: { channelId: string; characterId: string },
): Promise<boolean> {
  const rows = await db
    .delete(sceneCharacters)
    .where(
      and(
        eq(sceneCharacters.channelId, options.channelId),
        eq(sceneCharacters.characterId, options.characterId),
      ),
    )
    .returning({ characterId: sceneCharacters.characterId });
  return rows.length > 0;
}

/** Whether any channel has anyone on stage: one index probe. */
export async function anySceneInUse(db: Database): Promise<boolean> {
  const rows = await db
    .select({ one: sql`1` })
    .from(sceneCharacters)
    .limit(1);
  return rows.length > 0;
}

/** Who is on a channel's stage, in turn order. */
export async function loadScene(db: Database, channelId: string): Promise<Character[]> {
  const rows = await db
    .select({ character: characters })
    .from(sceneCharacters)
    .innerJoin(characters, eq(characters.id, sceneCharacters.characterId))
    .where(eq(sceneCharacters.channelId, channelId))
    .orderBy(asc(sceneCharacters.position));
  return rows.map((row) => fromRow(row.character));
}
