import {
  ALLOW_USER_MENTIONS_FLAG,
  ANSWER_BOTS_FLAG,
  type ReplySwitch,
} from '../../settings/reply-switches.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { currentSettings, saveSettings } from './settings-writes.ts';

const ENABLED_OPTION = 'enabled';

const text = commandText({
  en: {
    enabled: 'On or off',
    'answer-bots.description': 'Whether I answer other bots (at most 3 bot replies in a row)',
    'answer-bots.on':
      'I now answer other bots here, at most 3 times in a row in a channel until a person writes.',
    'answer-bots.off': 'I no longer answer other bots here.',
    'user-mentions.description': 'Whether my replies may ping the members they @mention',
    'user-mentions.on':
      'My replies may now ping the members they mention (never roles, @everyone or @here).',
    'user-mentions.off': 'My replies no longer ping anyone.',
  },
  ja: {
    enabled: 'オンかオフ',
    'answer-bots.description': '他のボットに返信するか（連続で最大3回）',
    'answer-bots.on':
      'ここで他のボットにも返信します。人が書き込むまで、チャンネルごとに連続3回までです。',
    'answer-bots.off': 'ここでは他のボットに返信しなくなりました。',
    'user-mentions.description': '返信の中の@メンションでメンバーに通知するか',
    'user-mentions.on':
      '返信でメンションしたメンバーに通知が届くようになりました（ロール、@everyone、@here には届きません）。',
    'user-mentions.off': '返信で誰にも通知しなくなりました。',
  },
});

type SwitchName = 'answer-bots' | 'user-mentions';

/** A `/config <name> enabled:<bool>` that stores one reply switch as a feature flag. */
function replySwitchSubcommand(name: SwitchName, flag: ReplySwitch): ConfigSubcommand {
  return {
    name,
    define: (builder) =>
      builder.addSubcommand((sub) =>
        text
          .describe(sub.setName(name), `${name}.description`)
          .addBooleanOption((option) =>
            text.describe(option.setName(ENABLED_OPTION), 'enabled').setRequired(true),
          ),
      ),
    async execute(interaction, context) {
      const enabled = interaction.options.getBoolean(ENABLED_OPTION, true);
      // Built on the flags as stored now: a tool switched meanwhile by another admin stays.
      const current = await currentSettings(interaction, context);
      await saveSettings(
        interaction,
        context,
        { featureFlags: { ...current.featureFlags, [flag]: enabled } },
        current,
      );
      await respond(interaction, text.get(context.locale, `${name}.${enabled ? 'on' : 'off'}`));
    },
  };
}

/** `/config answer-bots`: reply to other bots (off by default), with the loop guard. */
export const answerBotsSubcommand = replySwitchSubcommand('answer-bots', ANSWER_BOTS_FLAG);
/** `/config user-mentions`: let replies ping the members they mention (off by default). */
export const userMentionsSubcommand = replySwitchSubcommand(
  'user-mentions',
  ALLOW_USER_MENTIONS_FLAG,
);
