import type { Character } from '../../core/character.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import type { TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';
import { turnedToIn } from '../intake/character-addressing.ts';
import type { CharacterSpeakers } from '../intake/character-speakers.ts';

/**
 * The next turn of a scene, after a character answered in full: the next character the member
 * addressed, else one the reply itself turns to ("Bob, what do you say?") — while the member's
 * message has character turns left. Undefined when the scene is over. The next speaker answers
 * the member's message and every reply spoken since.
 */
export function nextSceneTurn(
  answered: AcceptedMessage,
  outcome: Pick<TurnOutcome, 'status' | 'content' | 'messageIds'>,
  speakers: CharacterSpeakers,
): AcceptedMessage | undefined {
  const { facts } = answered;
  const { scene, speaker } = facts;
  if (scene === undefined || speaker === undefined || outcome.status !== 'complete') {
    return undefined;
  }
  const turnsLeft = scene.turnsLeft - 1;
  const next = scene.waiting[0] ?? turnedTo(outcome.content, scene.stage, speaker.character);
  const replyId = outcome.messageIds.at(-1);
  if (next === undefined || turnsLeft <= 0 || replyId === undefined) return undefined;
  const spoken = [
    ...scene.spoken,
    spokenReply(answered.message, speaker.character, outcome.content, replyId),
  ];
  return {
    ...answered,
    reason: 'scene',
    recordId: timeOrderedId(),
    facts: speakers.factsFor(facts, next, {
      stage: scene.stage,
      waiting: scene.waiting.slice(1),
      turnsLeft,
      spoken,
    }),
  };
}

function turnedTo(
  reply: string,
  stage: readonly Character[],
  speaker: Character,
): Character | undefined {
  return turnedToIn(reply, stage).find((character) => character.id !== speaker.id);
}

/** A character's reply as the next speaker reads it: the character's words, labelled with its name. */
function spokenReply(
  answered: InboundMessage,
  character: Character,
  content: string,
  messageId: string,
): InboundMessage {
  return {
    id: messageId,
    channelId: answered.channelId,
    guildId: answered.guildId,
    authorId: character.id,
    authorName: character.name,
    authorIsBot: true,
    content,
    createdAt: answered.createdAt,
    isDM: answered.isDM,
    mentionsBot: false,
    repliesToBot: false,
    replyToMessageId: undefined,
    attachments: [],
    characterName: character.name,
  };
}
