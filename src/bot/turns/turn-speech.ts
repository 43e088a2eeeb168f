import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import type { Download } from '../context/trigger-attachments.ts';
import type { AcceptedMessage, TurnFacts } from '../intake/accepted-message.ts';
import { personaVoiceOf } from '../settings/voice-settings.ts';
import { accountSpeech, type AccountedSpeech, type AccountingOptions } from './turn-accounting.ts';
import type { SpokenReplyOptions } from './turn-stream.ts';
import { hearVoiceMessages, type HeardBatch } from './voice-transcription.ts';
import { wantsVoiceReply } from './voice-request.ts';

/** What a turn's speech needs of the runner's dependencies. */
export interface TurnSpeechOptions extends AccountingOptions {
  speech?: SpeechService | undefined;
  download: Download;
  history: ChannelHistory;
}

/** The part of a running turn its speech reads. */
export interface SpeakingTurn {
  batch: readonly AcceptedMessage[];
  last: AcceptedMessage;
  facts: TurnFacts;
  logger: Logger;
  signal: AbortSignal;
}

/** The batch's voice messages heard (as text), the seconds heard counted in the usage. */
export async function hearTurn(
  options: TurnSpeechOptions,
  turn: SpeakingTurn,
): Promise<HeardBatch> {
  const heard = await hearVoiceMessages({ ...options, ...turn });
  const { speech } = options;
  if (heard.ok && heard.secondsHeard > 0 && speech !== undefined) {
    await countSpeech(options, turn, {
      model: speech.transcriptionModel,
      seconds: heard.secondsHeard,
      cost: speech.transcriptionCost(heard.secondsHeard),
    });
  }
  return heard;
}

/**
 * How the reply is spoken, when it is (the scope's `/config voice` and the batch): in the
 * persona's voice, the characters spoken counted in the usage once it is flushed.
 */
export function spokenReplyFor(
  options: TurnSpeechOptions,
  turn: SpeakingTurn,
): SpokenReplyOptions | undefined {
  const { speech } = options;
  // A turn in a voice channel is spoken there, live (spokenLiveFor), not as voice messages.
  if (turn.facts.voice !== undefined) return undefined;
  if (speech === undefined || !wantsVoiceReply(turn.batch, turn.facts)) return undefined;
  return {
    speech,
    voice: personaVoiceOf(turn.facts.settings) ?? speech.defaultVoice,
    spoken: async (reply) => {
      turn.logger.info(
        {
          voiceMessages: reply.messageIds.length,
          characters: reply.characters,
          seconds: Math.round(reply.seconds * 10) / 10,
          failed: reply.failure !== undefined,
        },
        'reply spoken',
      );
      if (reply.characters === 0) return;
      await countSpeech(options, turn, {
        model: speech.speechModel,
        characters: reply.characters,
        cost: speech.speechCost(reply.characters),
      });
    },
  };
}

/** A reply spoken live in a voice channel: its characters counted once it has been spoken. */
export function spokenLiveFor(
  options: TurnSpeechOptions,
  turn: SpeakingTurn,
): ((characters: number) => Promise<void>) | undefined {
  const { speech } = options;
  if (speech === undefined || turn.facts.voice === undefined) return undefined;
  return async (characters) => {
    turn.logger.info({ characters }, 'reply spoken in the voice channel');
    if (characters === 0) return;
    await countSpeech(options, turn, {
      model: speech.speechModel,
      characters,
      cost: speech.speechCost(characters),
    });
  };
}

/** How the turn's reply is spoken: as voice messages, live in a voice channel, or not at all. */
export function speechOf(
  options: TurnSpeechOptions,
  turn: SpeakingTurn,
): { voice?: SpokenReplyOptions; spokenLive?: (characters: number) => Promise<void> } {
  const voice = spokenReplyFor(options, turn);
  const spokenLive = spokenLiveFor(options, turn);
  return {
    ...(voice === undefined ? {} : { voice }),
    ...(spokenLive === undefined ? {} : { spokenLive }),
  };
}

/** Speech of the turn against its scope and the member it answers. */
function countSpeech(
  options: AccountingOptions,
  turn: SpeakingTurn,
  usage: Omit<AccountedSpeech, 'scopeId' | 'memberId'>,
): Promise<void> {
  return accountSpeech(
    { ...options, logger: turn.logger },
    { ...usage, scopeId: turn.facts.scope.id, memberId: turn.last.message.authorId },
  );
}
