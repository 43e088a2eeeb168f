import { onOffSetting, optionalText } from './config-fields.ts';

import type { VoiceChannelSettings } from '../../bot/voice/voice-channels.ts';

/**
 * Conversation in voice channels (VOICE_*): off unless VOICE_CHANNELS=on, which needs speech.
 * VOICE_AUTO_JOIN, VOICE_TEXT_CHAT and VOICE_SILENCE_MS shape it.
 */
export type VoiceChannelConfig = VoiceChannelSettings;

export const DEFAULT_VOICE_SILENCE_MS = 700;
const SILENCE_RANGE = { min: 300, max: 3_000 };

export const voiceChannelEnvironmentSchema = {
  VOICE_CHANNELS: onOffSetting('VOICE_CHANNELS'),
  VOICE_AUTO_JOIN: onOffSetting('VOICE_AUTO_JOIN'),
  VOICE_TEXT_CHAT: onOffSetting('VOICE_TEXT_CHAT'),
  VOICE_SILENCE_MS: optionalText.refine(
    (value) =>
      value === undefined ||
      (/^\d{3,4}$/.test(value) &&
        Number(value) >= SILENCE_RANGE.min &&
        Number(value) <= SILENCE_RANGE.max),
    `must be a whole number of milliseconds from ${SILENCE_RANGE.min} to ${SILENCE_RANGE.max}`,
  ),
};

type VoiceChannelValues = {
  [Name in keyof typeof voiceChannelEnvironmentSchema]?: string | undefined;
} & { SPEECH_PROVIDER?: string | undefined };

/** The voice channel settings, undefined when off; a problem when on without speech. */
export function parseVoiceChannels(values: VoiceChannelValues): {
  voiceChannels: VoiceChannelConfig | undefined;
  problems: string[];
} {
  if (values.VOICE_CHANNELS !== 'on') return { voiceChannels: undefined, problems: [] };
  if (values.SPEECH_PROVIDER === undefined) {
    return {
      voiceChannels: undefined,
      problems: [
        'VOICE_CHANNELS=on needs SPEECH_PROVIDER: the bot hears and speaks in voice channels through the speech provider',
      ],
    };
  }
  return {
    voiceChannels: {
      autoJoin: values.VOICE_AUTO_JOIN === 'on',
      textChat: values.VOICE_TEXT_CHAT !== 'off',
      silenceMs:
        values.VOICE_SILENCE_MS === undefined
          ? DEFAULT_VOICE_SILENCE_MS
          : Number(values.VOICE_SILENCE_MS),
    },
    problems: [],
  };
}
