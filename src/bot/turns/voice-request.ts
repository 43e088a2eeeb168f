import type { AcceptedMessage } from '../intake/accepted-message.ts';
import { voiceReplyModeOf } from '../settings/voice-settings.ts';
import type { TurnFacts } from '../intake/accepted-message.ts';

/** "Say it", "out loud", "in your voice", 声で, 読み上げて, しゃべって… */
const ASKS_FOR_VOICE =
  /\b(say (it|that|this)|out ?loud|aloud|(in|with) your voice|voice (message|reply)|speak (it|to me|up))\b|声で|読み上げ|音声で|しゃべって|喋って|話して聞かせ/iu;

/**
 * Whether this turn's reply is also spoken: always, never, or — when asked — if a message of
 * the batch asks for it or is itself a voice message (an answer in kind).
 */
export function wantsVoiceReply(batch: readonly AcceptedMessage[], facts: TurnFacts): boolean {
  switch (voiceReplyModeOf(facts.settings)) {
    case 'off':
      return false;
    case 'always':
      return true;
    case 'asked':
      return batch.some(
        ({ message }) => message.voice !== undefined || ASKS_FOR_VOICE.test(message.content),
      );
  }
}
