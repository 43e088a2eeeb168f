import { eq } from 'drizzle-orm';
import type { Database } from './database.ts';
import { characterMessages } from './schema.ts';

/** Remembers which character posted a webhook message (a second record of one id is ignored). */
export async function recordCharacterMessage(
  db: Database,
  record: { messageId: string; channelId: string; characterId: string },
): Promise<void> {
  await db.insert(characterMessages).values(record).onConflictDoNothing();
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
