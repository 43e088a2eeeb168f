import { eq } from 'drizzle-orm';
import type { Database } from './database.ts';
import { characterMessages } from './schema.ts';

/** One webhook message a character posted, and the member message its turn answered. */
export interface CharacterMessageRecord {
  messageId: string;
  channelId: string;
  characterId: string;
  /** Undefined for a message no member asked for (a scene's greeting). */
  triggerMessageId?: string | undefined;
}

/** Remembers which character posted a webhook message (a second record of one id is ignored). */
export async function recordCharacterMessage(
  db: Database,
  record: CharacterMessageRecord,
): Promise<void> {
  const { triggerMessageId, ...row } = record;
  await db
    .insert(characterMessages)
    .values({ ...row, triggerMessageId: triggerMessageId ?? null })
    .onConflictDoNothing();
}

/** The character that posted a message, if one of them did (and still exists). */
export async function characterOfMessage(
  db: Database,
  messageId: string,
): Promise<string | undefined> {
  const [row] = await db
    .select({ characterId: characterMessages.characterId })
    .from(characterMessages)
    .where(eq(characterMessages.messageId, messageId));
  return row?.characterId;
}

/** The ids of the messages characters posted answering `triggerMessageId` (any order). */
export async function characterRepliesTo(
  db: Database,
  triggerMessageId: string,
): Promise<string[]> {
  const rows = await db
    .select({ messageId: characterMessages.messageId })
    .from(characterMessages)
    .where(eq(characterMessages.triggerMessageId, triggerMessageId));
  return rows.map((row) => row.messageId);
}
