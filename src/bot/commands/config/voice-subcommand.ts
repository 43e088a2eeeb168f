import {
  PERSONA_VOICES_FLAG,
  personaVoiceOf,
  VOICE_REPLIES_FLAG,
  VOICE_REPLY_MODES,
  voiceReplyModeOf,
  withPersonaVoice,
  type VoiceReplyMode,
} from '../../settings/voice-settings.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { currentSettings, saveSettings } from './settings-writes.ts';

/** Voice names are short ids (`alloy`, `af_heart`, `Kore`); `default` clears the persona's. */
const MAX_VOICE_NAME = 64;
const DEFAULT_VOICE_WORD = 'default';

const text = commandText({
  en: {
    description: 'Whether replies are also spoken as voice messages, and in which voice',
    replies: 'Off, when asked ("say it", or a voice message), or always',
    voice: 'The current persona’s voice (e.g. alloy, af_heart); "default" for the server’s',
    'replies.off': 'off',
    'replies.asked': 'when asked',
    'replies.always': 'always',
    done: 'Voice replies: **{mode}**. Voice of {persona}: **{voice}**.',
    'persona.default': 'the default persona',
    'voice.default': 'the server default',
    no_speech:
      'Note: this bot has no speech service set up (SPEECH_PROVIDER), so nothing is spoken yet.',
  },
  ja: {
    description: '返信を音声メッセージでも送るか、どの声で話すか',
    replies: 'オフ、頼まれたとき（「声で」やボイスメッセージ）、または常に',
    voice: '現在のペルソナの声（例：alloy、af_heart）。「default」でサーバーの既定に戻す',
    'replies.off': 'オフ',
    'replies.asked': '頼まれたとき',
    'replies.always': '常に',
    done: '音声での返信：**{mode}**。{persona}の声：**{voice}**',
    'persona.default': '既定のペルソナ',
    'voice.default': 'サーバーの既定',
    no_speech:
      '注意：このボットには音声サービス（SPEECH_PROVIDER）が設定されていないため、まだ話せません。',
  },
});

/** `/config voice`: spoken replies (off, when asked, always) and the persona's voice. */
export const voiceSubcommand: ConfigSubcommand = {
  name: 'voice',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text
        .describe(sub.setName('voice'), 'description')
        .addStringOption((option) =>
          text
            .describe(option.setName('replies'), 'replies')
            .addChoices(...VOICE_REPLY_MODES.map((mode) => text.choice(`replies.${mode}`, mode))),
        )
        .addStringOption((option) =>
          text.describe(option.setName('voice'), 'voice').setMaxLength(MAX_VOICE_NAME),
        ),
    ),
  async execute(interaction, context) {
    const { locale } = context;
    const mode = interaction.options.getString('replies') as VoiceReplyMode | null;
    const voiceOption = interaction.options.getString('voice')?.trim();
    const current = await currentSettings(interaction, context);
    let settings = current;
    if (mode !== null || (voiceOption !== undefined && voiceOption !== '')) {
      const voice =
        voiceOption === undefined || voiceOption === ''
          ? personaVoiceOf(current)
          : voiceOption.toLowerCase() === DEFAULT_VOICE_WORD
            ? undefined
            : voiceOption;
      const featureFlags = {
        ...current.featureFlags,
        [VOICE_REPLIES_FLAG]: mode ?? voiceReplyModeOf(current),
        [PERSONA_VOICES_FLAG]: withPersonaVoice(current, voice),
      };
      settings = await saveSettings(interaction, context, { featureFlags }, current);
    }
    const lines = [
      text.get(locale, 'done', {
        mode: text.get(locale, `replies.${voiceReplyModeOf(settings)}`),
        persona: settings.personaName ?? text.get(locale, 'persona.default'),
        voice: personaVoiceOf(settings) ?? text.get(locale, 'voice.default'),
      }),
    ];
    if (context.services.speech === undefined) lines.push(text.get(locale, 'no_speech'));
    await respond(interaction, lines.join('\n'));
  },
};
