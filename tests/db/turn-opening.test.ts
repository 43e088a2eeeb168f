/**
 * A turn's opening (openTurn) is built into text once per shape (statement-cache.ts): every
 * shape, sent again with other values, writes exactly what was sent, as it did when built per
 * call.
 */
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeOrderedId } from '../../src/core/time-ordered-id.ts';
import { ensureScope } from '../../src/db/scope-settings-repository.ts';
import { conversationTurns } from '../../src/db/schema.ts';
import {
  openTurn,
  type AssistantTurnStart,
  type UserTurnInput,
} from '../../src/db/turn-repository.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const SCOPE = '153456789012345690';
const CHARACTER = '00000000-0000-4000-8000-0000000000aa';

describe.each(testBackends())('a turn’s opening on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    await ensureScope(database.db, SCOPE, 'guild');
  });
  afterAll(() => database.dispose());

  function member(channelId: string, content: string, pinnedBy?: string): UserTurnInput {
    const messageId = timeOrderedId();
    return {
      id: timeOrderedId(),
      scopeId: SCOPE,
      channelId,
      authorId: `member-of-${channelId}`,
      authorName: `Member ${content}`,
      messageId,
      content,
      ...(pinnedBy === undefined ? {} : { pinnedBy }),
    };
  }

  function reply(channelId: string, parts: Partial<AssistantTurnStart> = {}): AssistantTurnStart {
    return {
      id: timeOrderedId(),
      scopeId: SCOPE,
      channelId,
      authorId: 'bot',
      authorName: parts.characterId === undefined ? 'Tomodachi' : 'Mira',
      triggerMessageId: timeOrderedId(),
      ...parts,
    };
  }

  async function rows(channelId: string) {
    return database.db
      .select({
        role: conversationTurns.role,
        authorId: conversationTurns.authorId,
        authorName: conversationTurns.authorName,
        content: conversationTurns.content,
        messageIds: conversationTurns.discordMessageIds,
        triggerMessageId: conversationTurns.triggerMessageId,
        pinnedBy: conversationTurns.pinnedBy,
        characterId: conversationTurns.characterId,
        instanceId: conversationTurns.instanceId,
        status: conversationTurns.status,
      })
      .from(conversationTurns)
      .where(eq(conversationTurns.channelId, channelId))
      .orderBy(asc(conversationTurns.createdAt), asc(conversationTurns.id));
  }

  it('writes what each call sent, whichever shape was built before it', async () => {
    const channels = ['253456789012345691', '253456789012345692'];
    // Three rounds, the channels swapped: each shape is sent again with other values.
    for (let round = 0; round < 3; round += 1) {
      for (const [index, channelId] of channels.entries()) {
        const tag = `${round}-${index}`;
        const asked = member(channelId, `plain ${tag}`);
        const plainReply = reply(channelId, { instanceId: `instance-${tag}` });
        await openTurn(database.db, { userTurn: asked, reply: plainReply });
        const pinned = member(channelId, `pinned ${tag}`, `pinner-${tag}`);
        const characterReply = reply(channelId, { characterId: CHARACTER });
        await openTurn(database.db, { userTurn: pinned, reply: characterReply });
        const replyOnly = reply(channelId, { instanceId: `again-${tag}` });
        await openTurn(database.db, { userTurn: undefined, reply: replyOnly });
        const written = (await rows(channelId)).slice(-5);
        expect(written).toEqual([
          {
            role: 'user',
            authorId: asked.authorId,
            authorName: asked.authorName,
            content: asked.content,
            messageIds: [asked.messageId],
            triggerMessageId: asked.messageId,
            // Among a conversation's first three user turns (two before it in round 1): pinned
            // by the bot; in round 2, four came before it.
            pinnedBy: round < 2 ? 'auto' : null,
            characterId: null,
            instanceId: null,
            status: 'complete',
          },
          expect.objectContaining({
            role: 'assistant',
            authorName: 'Tomodachi',
            content: '',
            triggerMessageId: plainReply.triggerMessageId,
            characterId: null,
            instanceId: `instance-${tag}`,
            status: 'streaming',
          }),
          expect.objectContaining({
            role: 'user',
            content: pinned.content,
            messageIds: [pinned.messageId],
            pinnedBy: `pinner-${tag}`,
          }),
          expect.objectContaining({
            role: 'assistant',
            authorName: 'Mira',
            characterId: CHARACTER,
            instanceId: null,
          }),
          expect.objectContaining({
            role: 'assistant',
            triggerMessageId: replyOnly.triggerMessageId,
            instanceId: `again-${tag}`,
          }),
        ]);
      }
    }
  });
});
