import type { Character } from '../../core/character.ts';
import { timeOrderedId } from '../../core/time-ordered-id.ts';
import { isStopRequest, type LiveCast } from '../../stream/stop/stop-registry.ts';
import type { TurnOutcome } from '../../stream/turn/stream-orchestrator.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';
import { turnedToIn } from '../intake/character-addressing.ts';
import type { CharacterSpeakers } from '../intake/character-speakers.ts';

/**
 * The next turn of a scene, after a character answered in full: the next character the member
 * addressed, else one the reply itself turns to ("Bob, what do you say?") — while the member's
 * message has character turns left, and never one a member's stop named ("Alice, stop").
 * Undefined when the scene is over. The next speaker answers the member's message and every
 * reply spoken since.
 *
 * `stoppedByName`: the turn ended because a stop named its character (or it was skipped, named
 * before it began): the scene goes on with those the member addressed, not with whom the cut
 * reply turned to.
 */
export function nextSceneTurn(
  answered: AcceptedMessage,
  outcome: Pick<TurnOutcome, 'status' | 'content' | 'messageIds'>,
  speakers: CharacterSpeakers,
  options: { stoppedByName?: boolean } = {},
): AcceptedMessage | undefined {
  const { facts } = answered;
  const { scene, speaker } = facts;
  if (scene === undefined || speaker === undefined) return undefined;
  const whole = outcome.status === 'complete';
  if (!whole && options.stoppedByName !== true) return undefined;
  const replyId = outcome.messageIds.at(-1);
  if (whole && replyId === undefined) return undefined;
  const turnsLeft = scene.turnsLeft - 1;
  const waiting = scene.waiting.filter((character) => !scene.silenced.has(character.id));
  const next =
    waiting[0] ??
    (whole ? turnedTo(outcome.content, scene.stage, speaker.character, scene.silenced) : undefined);
  if (next === undefined || turnsLeft <= 0) return undefined;
  const spoken =
    replyId === undefined
      ? scene.spoken
      : [
          ...scene.spoken,
          spokenReply(answered.message, speaker.character, outcome.content, replyId),
        ];
  return {
    ...answered,
    reason: 'scene',
    recordId: timeOrderedId(),
    facts: speakers.factsFor(
      facts,
      next,
      {
        stage: scene.stage,
        waiting: waiting.filter((character) => character.id !== next.id),
        turnsLeft,
        spoken,
        silenced: scene.silenced,
      },
      answered.message.id,
    ),
  };
}

/** What a scene turn registers to be stopped by name: its speaker, the stage, the silenced. */
export function sceneCast(facts: AcceptedMessage['facts']): LiveCast | undefined {
  const { scene, speaker } = facts;
  if (scene === undefined || speaker === undefined) return undefined;
  return {
    speakerId: speaker.character.id,
    stage: scene.stage.map((character) => ({ id: character.id, name: character.name })),
    silence: (characterIds) => {
      for (const id of characterIds) scene.silenced.add(id);
    },
  };
}

/** A turn aborted by a stop that named its character: the rest of the scene goes on. */
export function stoppedByName(signal: AbortSignal): boolean {
  const reason: unknown = signal.reason;
  return signal.aborted && isStopRequest(reason) && reason.characterIds !== undefined;
}

/** The outcome of a scene turn that said nothing (skipped, or stopped before it began). */
export const NOTHING_SAID: Readonly<Pick<TurnOutcome, 'status' | 'content' | 'messageIds'>> = {
  status: 'stopped',
  content: '',
  messageIds: [],
};

/** Whether a member's stop named this turn's character before it began: it is skipped. */
export function isSilencedTurn(accepted: AcceptedMessage): boolean {
  const { scene, speaker } = accepted.facts;
  return speaker !== undefined && scene?.silenced.has(speaker.character.id) === true;
}

function turnedTo(
  reply: string,
  stage: readonly Character[],
  speaker: Character,
  silenced: ReadonlySet<string>,
): Character | undefined {
  return turnedToIn(reply, stage).find(
    (character) => character.id !== speaker.id && !silenced.has(character.id),
  );
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
