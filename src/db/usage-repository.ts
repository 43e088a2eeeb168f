import { and, between, desc, eq, sql, type SQLWrapper } from 'drizzle-orm';
import type { Database } from './database.ts';
import { characterDailyUsage, characters, memberDailyUsage, scopeDailyUsage } from './schema.ts';
import { StatementCache } from './statement-cache.ts';
import { writesInOneStatement } from './writes-in-one-statement.ts';

/** The UTC day of an instant, as the `date` column stores it. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Tokens (input + output) and nano-dollars spent. */
export interface Spend {
  tokens: number;
  cost: number;
}

export interface UsageEntry {
  scopeId: string;
  /** The member whose message the model call answered; '' for work nobody asked for. */
  memberId: string;
  model: string;
  at: Date;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  /** Nano-dollars, at the model's price now. */
  cost: number;
  /** 1 for a turn, 0 for a model call within one (an overflowed attempt, a stop's answer). */
  turns: number;
  /** Seconds of voice messages transcribed (a speech-to-text model's entry). */
  speechSeconds?: number;
  /** Characters of a reply spoken (a text-to-speech model's entry). */
  speechCharacters?: number;
  /** The character who spoke the turn, if one did. */
  characterId?: string | undefined;
}

/**
 * Adds a model call's tokens and cost to its scope's UTC day, to its member's row for the model
 * and to its character's, in one statement (atomic across processes, like a transaction, and one
 * round trip instead of four: the turn's bill is written on every turn).
 */
export async function addUsage(db: Database, usage: UsageEntry): Promise<void> {
  const { at, characterId, ...entry } = usage;
  await USAGE_WRITES.execute(db, {
    shape: characterId === undefined ? 'member' : 'member and character',
    values: {
      ...entry,
      day: utcDay(at),
      speechSeconds: entry.speechSeconds ?? 0,
      speechCharacters: entry.speechCharacters ?? 0,
      characterId: characterId ?? '',
    },
    build: (row) =>
      writesInOneStatement([
        scopeUpsert(db, row),
        memberUpsert(db, row),
        ...(characterId === undefined ? [] : [characterUpsert(db, row)]),
      ]),
  });
}

/** One model call's row of every usage table it adds to (characterId '' when none spoke). */
interface UsageRow extends UsageSums {
  scopeId: string;
  day: string;
  memberId: string;
  model: string;
  characterId: string;
}

/** The bill is written on every turn: its statement is built once per shape. */
const USAGE_WRITES = new StatementCache<UsageRow>();

function scopeUpsert(db: Database, usage: UsageRow): SQLWrapper {
  return db
    .insert(scopeDailyUsage)
    .values({
      scopeId: usage.scopeId,
      day: usage.day,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cost: usage.cost,
    })
    .onConflictDoUpdate({
      target: [scopeDailyUsage.scopeId, scopeDailyUsage.day],
      set: {
        inputTokens: sql`${scopeDailyUsage.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${scopeDailyUsage.outputTokens} + ${usage.outputTokens}`,
        cost: sql`${scopeDailyUsage.cost} + ${usage.cost}`,
      },
    });
}

function memberUpsert(db: Database, usage: UsageRow): SQLWrapper {
  return db
    .insert(memberDailyUsage)
    .values({
      scopeId: usage.scopeId,
      day: usage.day,
      memberId: usage.memberId,
      model: usage.model,
      turns: usage.turns,
      inputTokens: usage.inputTokens,
      cachedInputTokens: usage.cachedInputTokens,
      outputTokens: usage.outputTokens,
      cost: usage.cost,
      speechSeconds: usage.speechSeconds,
      speechCharacters: usage.speechCharacters,
    })
    .onConflictDoUpdate({
      target: [
        memberDailyUsage.scopeId,
        memberDailyUsage.day,
        memberDailyUsage.memberId,
        memberDailyUsage.model,
      ],
      set: {
        turns: sql`${memberDailyUsage.turns} + ${usage.turns}`,
        inputTokens: sql`${memberDailyUsage.inputTokens} + ${usage.inputTokens}`,
        cachedInputTokens: sql`${memberDailyUsage.cachedInputTokens} + ${usage.cachedInputTokens}`,
        outputTokens: sql`${memberDailyUsage.outputTokens} + ${usage.outputTokens}`,
        cost: sql`${memberDailyUsage.cost} + ${usage.cost}`,
        speechSeconds: sql`${memberDailyUsage.speechSeconds} + ${usage.speechSeconds}`,
        speechCharacters: sql`${memberDailyUsage.speechCharacters} + ${usage.speechCharacters}`,
      },
    });
}

/** A character's share of the day, written with its member's. */
function characterUpsert(db: Database, usage: UsageRow): SQLWrapper {
  return db
    .insert(characterDailyUsage)
    .values({
      scopeId: usage.scopeId,
      day: usage.day,
      characterId: usage.characterId,
      turns: usage.turns,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cost: usage.cost,
    })
    .onConflictDoUpdate({
      target: [
        characterDailyUsage.scopeId,
        characterDailyUsage.day,
        characterDailyUsage.characterId,
      ],
      set: {
        turns: sql`${characterDailyUsage.turns} + ${usage.turns}`,
        inputTokens: sql`${characterDailyUsage.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${characterDailyUsage.outputTokens} + ${usage.outputTokens}`,
        cost: sql`${characterDailyUsage.cost} + ${usage.cost}`,
      },
    });
}

/** What each character's turns spent in a scope over the days of `query`, most first. */
export async function characterUsage(
  db: Database,
  query: Omit<UsageQuery, 'memberId'>,
): Promise<Array<{ name: string; turns: number; tokens: number; cost: number }>> {
  const cost = sql<number>`sum(${characterDailyUsage.cost})`.mapWith(Number);
  const rows = await db
    .select({
      name: characters.name,
      turns: sql<number>`sum(${characterDailyUsage.turns})`.mapWith(Number),
      tokens:
        sql<number>`sum(${characterDailyUsage.inputTokens} + ${characterDailyUsage.outputTokens})`.mapWith(
          Number,
        ),
      cost,
    })
    .from(characterDailyUsage)
    .innerJoin(characters, eq(characters.id, characterDailyUsage.characterId))
    .where(
      and(
        eq(characterDailyUsage.scopeId, query.scopeId),
        between(characterDailyUsage.day, query.fromDay, query.toDay),
      ),
    )
    .groupBy(characters.id, characters.name)
    .orderBy(desc(cost), characters.name);
  return rows;
}

/** What a scope spent on the UTC day of `at`. */
export async function dailySpend(db: Database, scopeId: string, at: Date): Promise<Spend> {
  const [row] = await db
    .select({
      inputTokens: scopeDailyUsage.inputTokens,
      outputTokens: scopeDailyUsage.outputTokens,
      cost: scopeDailyUsage.cost,
    })
    .from(scopeDailyUsage)
    .where(and(eq(scopeDailyUsage.scopeId, scopeId), eq(scopeDailyUsage.day, utcDay(at))));
  return row === undefined
    ? { tokens: 0, cost: 0 }
    : { tokens: row.inputTokens + row.outputTokens, cost: row.cost };
}

/** What one member's turns in a scope spent on the UTC day of `at`, over every model. */
export async function memberDailySpend(
  db: Database,
  key: { scopeId: string; memberId: string },
  at: Date,
): Promise<Spend> {
  const [row] = await db
    .select({
      tokens: sql<string>`coalesce(sum(${memberDailyUsage.inputTokens} + ${memberDailyUsage.outputTokens}), 0)`,
      cost: sql<string>`coalesce(sum(${memberDailyUsage.cost}), 0)`,
    })
    .from(memberDailyUsage)
    .where(
      and(
        eq(memberDailyUsage.scopeId, key.scopeId),
        eq(memberDailyUsage.memberId, key.memberId),
        eq(memberDailyUsage.day, utcDay(at)),
      ),
    );
  return { tokens: Number(row?.tokens ?? 0), cost: Number(row?.cost ?? 0) };
}

/** Sums of usage columns (bigint sums come back as text: read as numbers). */
const sums = {
  turns: sql<number>`coalesce(sum(${memberDailyUsage.turns}), 0)`.mapWith(Number),
  inputTokens: sql<number>`coalesce(sum(${memberDailyUsage.inputTokens}), 0)`.mapWith(Number),
  cachedInputTokens: sql<number>`coalesce(sum(${memberDailyUsage.cachedInputTokens}), 0)`.mapWith(
    Number,
  ),
  outputTokens: sql<number>`coalesce(sum(${memberDailyUsage.outputTokens}), 0)`.mapWith(Number),
  cost: sql<number>`coalesce(sum(${memberDailyUsage.cost}), 0)`.mapWith(Number),
  speechSeconds: sql<number>`coalesce(sum(${memberDailyUsage.speechSeconds}), 0)`.mapWith(Number),
  speechCharacters: sql<number>`coalesce(sum(${memberDailyUsage.speechCharacters}), 0)`.mapWith(
    Number,
  ),
};

export interface UsageSums {
  turns: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  cost: number;
  speechSeconds: number;
  speechCharacters: number;
}

/** Which usage to read: a scope's (or one member's in it) from `fromDay` to `toDay`, UTC. */
export interface UsageQuery {
  scopeId: string;
  memberId?: string | undefined;
  fromDay: string;
  toDay: string;
}

function usageConditions(query: UsageQuery) {
  const conditions = [
    eq(memberDailyUsage.scopeId, query.scopeId),
    between(memberDailyUsage.day, query.fromDay, query.toDay),
  ];
  if (query.memberId !== undefined) conditions.push(eq(memberDailyUsage.memberId, query.memberId));
  return and(...conditions);
}

/** What `/usage` reads: sums per UTC day and model, and per member (most spent first). */
export interface UsageSummary {
  byDayAndModel: Array<UsageSums & { day: string; model: string }>;
  byMember: Array<UsageSums & { memberId: string }>;
}

/**
 * Usage summed per UTC day and model and per member, in one pass over the rows (grouping
 * sets): at most days × models plus members rows come back however many rows were read.
 */
export async function usageSummary(db: Database, query: UsageQuery): Promise<UsageSummary> {
  const rows = await db
    .select({
      day: memberDailyUsage.day,
      model: memberDailyUsage.model,
      memberId: memberDailyUsage.memberId,
      ...sums,
      perMember: sql<number>`grouping(${memberDailyUsage.day})`.mapWith(Number),
    })
    .from(memberDailyUsage)
    .where(usageConditions(query))
    .groupBy(
      sql`grouping sets ((${memberDailyUsage.day}, ${memberDailyUsage.model}), (${memberDailyUsage.memberId}))`,
    );
  const summary: UsageSummary = { byDayAndModel: [], byMember: [] };
  for (const { day, model, memberId, perMember, ...totals } of rows) {
    if (perMember === 1) summary.byMember.push({ memberId, ...totals });
    else summary.byDayAndModel.push({ day, model, ...totals });
  }
  summary.byDayAndModel.sort((left, right) => left.day.localeCompare(right.day));
  summary.byMember.sort(
    (left, right) =>
      right.cost - left.cost ||
      right.inputTokens + right.outputTokens - (left.inputTokens + left.outputTokens),
  );
  return summary;
}
