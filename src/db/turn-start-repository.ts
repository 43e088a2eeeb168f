import { and, eq, sql, type SQL } from 'drizzle-orm';
import {
  contextTurnsJson,
  contextTurnsOf,
  type ContextTurn,
  type ContextTurnLimits,
  type TurnTuple,
} from './context-turn-repository.ts';
import type { Database } from './database.ts';
import {
  contextMemoriesQuery,
  splitContextMemories,
  type ContextMemories,
  type ContextMemoriesOptions,
  type Memory,
  type MemoryKind,
} from './memory-repository.ts';
import { sinceReset } from './reset-marker-filter.ts';
import { StatementCache } from './statement-cache.ts';
import { channelSummaries, resetMarkers } from './schema.ts';

/** What a turn's context starts from besides its stored turns. */
export interface TurnStart {
  /** The channel's last /reset. */
  resetAt: Date | undefined;
  /** The channel's rolling summary, as summaryOf finds it. */
  summary: string | undefined;
  /** As memoriesForContext reads them. */
  memories: ContextMemories;
  /** As contextTurnsSinceReset reads them, when asked for (`turns`); else none. */
  turns: ContextTurn[];
}

/** A memory as the statement sends it: one JSON array, created_at in milliseconds. */
type MemoryTuple = [
  id: string,
  kind: MemoryKind,
  ownerId: string | null,
  characterId: string | null,
  authorId: string,
  content: string,
  createdAtMs: number,
];

/** The values of a turn's first read; the rest of its options decide its shape. */
const TURN_START = new StatementCache<{
  channelId: string;
  scopeId: string;
  authorId: string;
  characterId: string;
}>();

type TurnStartOptions = ContextMemoriesOptions & { channelId: string; turns?: ContextTurnLimits };

/**
 * The channel's reset marker, its summary's text, the memories the turn's author and scope
 * bring and (with `turns`) the stored turns a context chooses from, in one statement: every
 * turn needs all of them, and a reset racing the read is seen by every part alike, or by none.
 * Its text is built once per shape (statement-cache.ts): it is the largest a turn sends.
 */
export async function turnStartOf(db: Database, options: TurnStartOptions): Promise<TurnStart> {
  const { characterId, limitPerKind, turns } = options;
  const limits = turns === undefined ? '-' : `${turns.recent},${turns.important},${turns.pinned}`;
  const result = await TURN_START.execute(db, {
    shape: `${characterId === undefined ? '-' : 'character'} ${limitPerKind ?? '-'} ${limits}`,
    values: {
      channelId: options.channelId,
      scopeId: options.scopeId,
      authorId: options.authorId,
      characterId: characterId ?? '',
    },
    build: (slots) =>
      turnStartStatement(db, {
        ...options,
        ...slots,
        characterId: characterId === undefined ? undefined : slots.characterId,
      }),
  });
  const [row] = (
    result as {
      rows: {
        reset_at_ms: number | null;
        summary: string | null;
        memories: MemoryTuple[];
        turns: TurnTuple[] | null;
      }[];
    }
  ).rows;
  const resetAtMs = row?.reset_at_ms ?? undefined;
  return {
    resetAt: resetAtMs === undefined ? undefined : new Date(Math.floor(resetAtMs)),
    summary: row?.summary ?? undefined,
    memories: splitContextMemories((row?.memories ?? []).map(fromTuple)),
    turns: contextTurnsOf(row?.turns ?? []),
  };
}

/** The statement of {@link turnStartOf}. Milliseconds as doubles: both drivers return numbers. */
export function turnStartStatement(db: Database, options: TurnStartOptions): SQL {
  const { channelId } = options;
  const resetAt = db
    .select({ resetAt: resetMarkers.resetAt })
    .from(resetMarkers)
    .where(eq(resetMarkers.channelId, channelId));
  const summary = db
    .select({ content: channelSummaries.content })
    .from(channelSummaries)
    .where(
      and(
        eq(channelSummaries.channelId, channelId),
        sinceReset(db, { column: channelSummaries.coveredUntil, channelId }),
      ),
    );
  const memories = contextMemoriesQuery(db, options);
  return sql`
    select (extract(epoch from (${resetAt})) * 1000)::float8 as reset_at_ms,
      (${summary}) as summary,
      (select coalesce(json_agg(json_build_array(m.id, m.kind, m.owner_id, m.character_id, m.author_id,
        m.content, (extract(epoch from m.created_at) * 1000)::float8)
        order by m.created_at, m.id), '[]'::json)
        from (${memories}) as m) as memories,
      ${options.turns === undefined ? sql`null` : contextTurnsJson(db, channelId, options.turns)} as turns`;
}

function fromTuple(tuple: MemoryTuple): Memory {
  const [id, kind, ownerId, characterId, authorId, content, createdAtMs] = tuple;
  return {
    id,
    kind,
    ownerId: ownerId ?? undefined,
    characterId: characterId ?? undefined,
    authorId,
    content,
    createdAt: new Date(Math.floor(createdAtMs)),
  };
}
