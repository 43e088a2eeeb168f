import type { ScopeSettings } from '../../core/settings.ts';

/** Feature flag: when replies are also spoken, as voice messages. */
export const VOICE_REPLIES_FLAG = 'voiceReplies';
/** Feature flag: each persona's voice, by persona name (the default persona under ''). */
export const PERSONA_VOICES_FLAG = 'personaVoices';

export const VOICE_REPLY_MODES = ['off', 'asked', 'always'] as const;
/** `asked`: when a member asks for it ("say it") or speaks to the bot in a voice message. */
export type VoiceReplyMode = (typeof VOICE_REPLY_MODES)[number];

/** Off unless `/config voice` turned it on. */
export function voiceReplyModeOf(settings: ScopeSettings): VoiceReplyMode {
  const mode = settings.featureFlags[VOICE_REPLIES_FLAG];
  return (VOICE_REPLY_MODES as readonly unknown[]).includes(mode)
    ? (mode as VoiceReplyMode)
    : 'off';
}

/** The voice of the persona these settings speak as (the channel's own, or the server's). */
export function personaVoiceOf(settings: ScopeSettings): string | undefined {
  const voices = settings.featureFlags[PERSONA_VOICES_FLAG];
  if (typeof voices !== 'object' || voices === null) return undefined;
  const voice = (voices as Record<string, unknown>)[settings.personaName ?? ''];
  return typeof voice === 'string' && voice !== '' ? voice : undefined;
}

/** The persona voices with this persona's set (or cleared, for `undefined`). */
export function withPersonaVoice(
  settings: ScopeSettings,
  voice: string | undefined,
): Record<string, string> {
  const current = settings.featureFlags[PERSONA_VOICES_FLAG];
  const voices: Record<string, string> = {};
  if (typeof current === 'object' && current !== null) {
    for (const [persona, name] of Object.entries(current as Record<string, unknown>))
      if (typeof name === 'string') voices[persona] = name;
  }
  const persona = settings.personaName ?? '';
  if (voice === undefined) delete voices[persona];
  else voices[persona] = voice;
  return voices;
}
