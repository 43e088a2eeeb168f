import { and, asc, count, eq, sql } from 'drizzle-orm';
import { characterNameKey, type Character, type CharacterFields } from '../core/character.ts';
import type { HumanizerDegree, ScopeKind } from '../core/settings.ts';
import type { Database } from './database.ts';
import { ensureScope } from './scope-settings-repository.ts';
import { characters, scopes } from './schema.ts';

type CharacterRow = typeof characters.$inferSelect;

export type SaveCharacterResult =
  | { status: 'saved'; character: Character }
  | { status: 'name-taken' }
  | { status: 'full'; limit: number };

/**
 * Adds a character to a server unless its name (folded) is taken there or the server holds
 * `limit` already. The scope row is locked so two processes cannot both slip under the limit.
 */
export async function createCharacter(
  db: Database,
  options: {
    scope: { id: string; kind: ScopeKind };
    createdBy: string;
    fields: CharacterFields;
    limit: number;
  },
): Promise<SaveCharacterResult> {
  const { scope, fields } = options;
  await ensureScope(db, scope.id, scope.kind);
  return db.transaction(async (transaction) => {
    await transaction
      .select({ id: scopes.id })
      .from(scopes)
      .where(eq(scopes.id, scope.id))
      .for('update');
    const [held] = await transaction
      .select({ count: count() })
      .from(characters)
      .where(eq(characters.scopeId, scope.id));
    if ((held?.count ?? 0) >= options.limit) return { status: 'full', limit: options.limit };
    const [row] = await transaction
      .insert(characters)
      .values({ scopeId: scope.id, createdBy: options.createdBy, ...toColumns(fields) })
      .onConflictDoNothing({ target: [characters.scopeId, characters.nameKey] })
      .returning();
    return row === undefined
      ? { status: 'name-taken' }
      : { status: 'saved', character: fromRow(row) };
  });
}

/** Replaces a character's fields (found by id in its server); undefined when it is gone. */
export async function updateCharacter(
  db: Database,
  options: { scopeId: string; id: string; fields: CharacterFields },
): Promise<SaveCharacterResult | undefined> {
  const columns = toColumns(options.fields);
  const [clash] = await db
    .select({ id: characters.id })
    .from(characters)
    .where(and(eq(characters.scopeId, options.scopeId), eq(characters.nameKey, columns.nameKey)));
  if (clash !== undefined && clash.id !== options.id) return { status: 'name-taken' };
  const [row] = await db
    .update(characters)
    .set({ ...columns, updatedAt: sql`now()` })
    .where(and(eq(characters.scopeId, options.scopeId), eq(characters.id, options.id)))
    .returning();
  return row === undefined ? undefined : { status: 'saved', character: fromRow(row) };
}

/** A server's characters by name. */
export async function listCharacters(db: Database, scopeId: string): Promise<Character[]> {
  const rows = await db
    .select()
    .from(characters)
    .where(eq(characters.scopeId, scopeId))
    .orderBy(asc(characters.nameKey));
  return rows.map(fromRow);
}

/** The server's character of that name (case and width folded). */
export async function findCharacter(
  db: Database,
  scopeId: string,
  name: string,
): Promise<Character | undefined> {
  const [row] = await db
    .select()
    .from(characters)
    .where(and(eq(characters.scopeId, scopeId), eq(characters.nameKey, characterNameKey(name))));
  return row === undefined ? undefined : fromRow(row);
}

/** Removes a character (its scene places and message records go with it); false when absent. */
export async function removeCharacter(
  db: Database,
  scopeId: string,
  name: string,
): Promise<boolean> {
  const rows = await db
    .delete(characters)
    .where(and(eq(characters.scopeId, scopeId), eq(characters.nameKey, characterNameKey(name))))
    .returning({ id: characters.id });
  return rows.length > 0;
}

function toColumns(
  fields: CharacterFields,
): Omit<typeof characters.$inferInsert, 'scopeId' | 'createdBy'> {
  return {
    name: fields.name.trim(),
    nameKey: characterNameKey(fields.name),
    avatarUrl: fields.avatarUrl ?? null,
    persona: fields.persona,
    greeting: fields.greeting ?? null,
    triggerWords: [...fields.triggerWords],
    provider: fields.provider ?? null,
    model: fields.model ?? null,
    temperature: fields.temperature ?? null,
    humanizerDegree: fields.humanizerDegree ?? null,
    language: fields.language ?? null,
    card: fields.card === undefined ? null : { ...fields.card },
  };
}

export function fromRow(row: CharacterRow): Character {
  return {
    id: row.id,
    scopeId: row.scopeId,
    name: row.name,
    avatarUrl: row.avatarUrl ?? undefined,
    persona: row.persona,
    greeting: row.greeting ?? undefined,
    triggerWords: row.triggerWords,
    provider: row.provider ?? undefined,
    model: row.model ?? undefined,
    temperature: row.temperature ?? undefined,
    humanizerDegree: (row.humanizerDegree ?? undefined) as HumanizerDegree | undefined,
    language: row.language ?? undefined,
    card: row.card ?? undefined,
    createdBy: row.createdBy,
  };
}
