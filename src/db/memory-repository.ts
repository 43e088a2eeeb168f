import { and, asc, count, eq, isNull } from 'drizzle-orm';
import type { ScopeKind } from '../core/settings.ts';
import type { Database } from './database.ts';
import { ensureScope } from './scope-settings-repository.ts';
import { characters, memories, scopes } from './schema.ts';

export type MemoryKind = 'server' | 'user';

export interface Memory {
  id: string;
  kind: MemoryKind;
  /** The member a personal memory is about; undefined for a server memory. */
  ownerId: string | undefined;
  /** The character whose own memory of the member it is; undefined: the bot's. */
  characterId: string | undefined;
  /** The member whose message led to the memory being written. */
  authorId: string;
  content: string;
  createdAt: Date;
}

/**
 * Which memories a query addresses: a server's shared memories, or ONE member's personal
 * memories — the bot's, or, with `characterId`, what that one character learned about them —
 * always inside one scope, so a DM's memories never meet a guild's.
 */
export type MemoryOwner =
  { kind: 'server' } | { kind: 'user'; ownerId: string; characterId?: string | undefined };

export interface NewMemory {
  scope: { id: string; kind: ScopeKind };
  owner: MemoryOwner;
  authorId: string;
  content: string;
  /** At most this many memories for this owner in this scope. */
  limit: number;
}

export type AddMemoryResult =
  | { status: 'added'; memory: Memory }
  | { status: 'duplicate'; memory: Memory }
  | { status: 'full'; limit: number };

/**
 * Stores a memory unless the owner's list is full or already holds the same text. The scope row
 * is locked for the duration so two processes cannot both slip under the limit.
 */
export async function addMemory(db: Database, memory: NewMemory): Promise<AddMemoryResult> {
  await ensureScope(db, memory.scope.id, memory.scope.kind);
  return db.transaction(async (transaction) => {
    await transaction
      .select({ id: scopes.id })
      .from(scopes)
      .where(eq(scopes.id, memory.scope.id))
      .for('update');
    const existing = await selectMemories(transaction, memory.scope.id, memory.owner);
    const duplicate = existing.find((row) => normalize(row.content) === normalize(memory.content));
    if (duplicate !== undefined) return { status: 'duplicate', memory: duplicate };
    if (existing.length >= memory.limit) return { status: 'full', limit: memory.limit };
    const [row] = await transaction
      .insert(memories)
      .values({
        scopeId: memory.scope.id,
        kind: memory.owner.kind,
        ownerId: memory.owner.kind === 'user' ? memory.owner.ownerId : null,
        characterId: memory.owner.kind === 'user' ? (memory.owner.characterId ?? null) : null,
        authorId: memory.authorId,
        content: memory.content,
      })
      .returning();
    if (row === undefined) throw new Error('memory insert returned no row');
    return { status: 'added', memory: fromRow(row) };
  });
}

/** The owner's memories in a scope, oldest first. */
export async function listMemories(
  db: Database,
  scopeId: string,
  owner: MemoryOwner,
): Promise<Memory[]> {
  return selectMemories(db, scopeId, owner);
}

export async function countMemories(
  db: Database,
  scopeId: string,
  owner: MemoryOwner,
): Promise<number> {
  const [row] = await db.select({ count: count() }).from(memories).where(ownedBy(scopeId, owner));
  return row?.count ?? 0;
}

/** One memory of the owner in the scope, or undefined (also for another owner's memory). */
export async function findMemory(
  db: Database,
  options: { scopeId: string; owner: MemoryOwner; id: string },
): Promise<Memory | undefined> {
  const [row] = await db
    .select()
    .from(memories)
    .where(and(ownedBy(options.scopeId, options.owner), eq(memories.id, options.id)));
  return row === undefined ? undefined : fromRow(row);
}

/** Deletes one memory of the owner in the scope; false when there was none. */
export async function deleteMemory(
  db: Database,
  options: { scopeId: string; owner: MemoryOwner; id: string },
): Promise<boolean> {
  const deleted = await db
    .delete(memories)
    .where(and(ownedBy(options.scopeId, options.owner), eq(memories.id, options.id)))
    .returning({ id: memories.id });
  return deleted.length > 0;
}

/** Of each kind, the oldest this many enter a turn's context. */
const CONTEXT_MEMORIES_PER_KIND = 100;

export interface ContextMemories {
  /** The scope's shared memories (none in a DM unless stored there). */
  server: Memory[];
  /** The bot's personal memories of the author in this scope. */
  personal: Memory[];
  /** What the character speaking the turn learned about the author itself (none for the bot). */
  character: Memory[];
}

export interface ContextMemoriesOptions {
  scopeId: string;
  authorId: string;
  /** The character speaking the turn: its own memories of the author come too. */
  characterId?: string | undefined;
  limitPerKind?: number;
}

/**
 * What the bot puts into a turn's context: the scope's server memories and the personal
 * memories of the author of the message being answered — never anyone else's — and, when a
 * character speaks, what that character learned about the author (no other character's). One
 * statement (each owner's read bounded, sent as a union); a turn sends it inside its first read
 * (turn-start-repository.ts).
 */
export async function memoriesForContext(
  db: Database,
  options: ContextMemoriesOptions,
): Promise<ContextMemories> {
  return splitContextMemories((await contextMemoriesQuery(db, options)).map(fromRow));
}

/** The read of {@link memoriesForContext}, unexecuted (a turn's first read embeds it). */
export function contextMemoriesQuery(db: Database, options: ContextMemoriesOptions) {
  const limit = options.limitPerKind ?? CONTEXT_MEMORIES_PER_KIND;
  const read = (owner: MemoryOwner) =>
    db
      .select()
      .from(memories)
      .where(ownedBy(options.scopeId, owner))
      .orderBy(asc(memories.createdAt), asc(memories.id))
      .limit(limit);
  const { characterId } = options;
  const shared = read({ kind: 'server' }).unionAll(
    read({ kind: 'user', ownerId: options.authorId }),
  );
  const all =
    characterId === undefined
      ? shared
      : shared.unionAll(read({ kind: 'user', ownerId: options.authorId, characterId }));
  // A union keeps no order of its own: each owner's memories again oldest first.
  return all.orderBy(asc(memories.createdAt), asc(memories.id));
}

/** Memories in their order: server, the bot's personal, and the character's own apart. */
export function splitContextMemories(sorted: readonly Memory[]): ContextMemories {
  return {
    server: sorted.filter((memory) => memory.kind === 'server'),
    personal: sorted.filter((memory) => memory.kind === 'user' && memory.characterId === undefined),
    character: sorted.filter((memory) => memory.characterId !== undefined),
  };
}

/** A character's own memory of a member, with the character's name. */
export interface CharacterMemory extends Memory {
  characterName: string;
}

/**
 * What characters of a scope learned about members, by character name then age: every
 * character's (or only `characterId`'s), about every member (or only `ownerId`).
 */
export async function listCharacterMemories(
  db: Database,
  options: { scopeId: string; characterId?: string; ownerId?: string },
): Promise<CharacterMemory[]> {
  const rows = await db
    .select({ memory: memories, characterName: characters.name })
    .from(memories)
    .innerJoin(characters, eq(characters.id, memories.characterId))
    .where(
      and(
        eq(memories.scopeId, options.scopeId),
        options.characterId === undefined
          ? undefined
          : eq(memories.characterId, options.characterId),
        options.ownerId === undefined ? undefined : eq(memories.ownerId, options.ownerId),
      ),
    )
    .orderBy(asc(characters.nameKey), asc(memories.ownerId), asc(memories.createdAt));
  return rows.map((row) => ({ ...fromRow(row.memory), characterName: row.characterName }));
}

async function selectMemories(
  db: Pick<Database, 'select'>,
  scopeId: string,
  owner: MemoryOwner,
  limit?: number,
): Promise<Memory[]> {
  const query = db
    .select()
    .from(memories)
    .where(ownedBy(scopeId, owner))
    .orderBy(asc(memories.createdAt), asc(memories.id));
  const rows = limit === undefined ? await query : await query.limit(limit);
  return rows.map(fromRow);
}

function ownedBy(scopeId: string, owner: MemoryOwner) {
  const characterId = owner.kind === 'user' ? owner.characterId : undefined;
  return and(
    eq(memories.scopeId, scopeId),
    eq(memories.kind, owner.kind),
    owner.kind === 'user' ? eq(memories.ownerId, owner.ownerId) : isNull(memories.ownerId),
    characterId === undefined
      ? isNull(memories.characterId)
      : eq(memories.characterId, characterId),
  );
}

function normalize(content: string): string {
  return content.trim().replace(/\s+/g, ' ').toLowerCase();
}

function fromRow(row: typeof memories.$inferSelect): Memory {
  return {
    id: row.id,
    kind: row.kind,
    ownerId: row.ownerId ?? undefined,
    characterId: row.characterId ?? undefined,
    authorId: row.authorId,
    content: row.content,
    createdAt: row.createdAt,
  };
}
