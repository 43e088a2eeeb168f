import {
  ApplicationIntegrationType,
  InteractionContextType,
  SlashCommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import { CHARACTER_LIMITS } from '../../../core/character.ts';
import { PROVIDER_IDS } from '../../../core/provider.ts';
import { settingLabels } from '../config/setting-labels.ts';
import { characterText as text } from './character-texts.ts';

/** Discord's limit for a string option. */
const OPTION_TEXT_LIMIT = 6_000;

/**
 * `/character create | edit | list | show | remove | import | export`. Listed for everyone: any
 * member may see the cast; changing it needs Manage Server, checked when it runs. In a DM with
 * the bot it is the member's own, private cast (their DM scope, which they administer).
 */
export function characterDefinition(): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const builder = text
    .describe(new SlashCommandBuilder().setName('character'), 'description')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
    .addSubcommand((sub) =>
      fieldOptions(
        text
          .describe(sub.setName('create'), 'create.description')
          .addStringOption((option) =>
            text
              .describe(option.setName('name'), 'name')
              .setRequired(true)
              .setMaxLength(CHARACTER_LIMITS.name),
          )
          .addStringOption((option) =>
            text
              .describe(option.setName('persona'), 'persona')
              .setRequired(true)
              .setMaxLength(OPTION_TEXT_LIMIT),
          ),
      ),
    )
    .addSubcommand((sub) =>
      fieldOptions(
        nameOption(text.describe(sub.setName('edit'), 'edit.description'))
          .addStringOption((option) =>
            text
              .describe(option.setName('new_name'), 'new_name')
              .setMaxLength(CHARACTER_LIMITS.name),
          )
          .addStringOption((option) =>
            text.describe(option.setName('persona'), 'persona').setMaxLength(OPTION_TEXT_LIMIT),
          ),
      ),
    )
    .addSubcommand((sub) => text.describe(sub.setName('list'), 'list.description'))
    .addSubcommand((sub) => nameOption(text.describe(sub.setName('show'), 'show.description')))
    .addSubcommand((sub) => nameOption(text.describe(sub.setName('remove'), 'remove.description')))
    .addSubcommand((sub) =>
      text
        .describe(sub.setName('import'), 'import.description')
        .addAttachmentOption((option) =>
          text.describe(option.setName('card'), 'card').setRequired(true),
        ),
    )
    .addSubcommand((sub) => nameOption(text.describe(sub.setName('export'), 'export.description')));
  return builder.toJSON();
}

function nameOption(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return sub.addStringOption((option) =>
    text.describe(option.setName('name'), 'name').setRequired(true).setAutocomplete(true),
  );
}

/** The optional fields create and edit share. */
function fieldOptions(sub: SlashCommandSubcommandBuilder): SlashCommandSubcommandBuilder {
  return sub
    .addStringOption((option) =>
      text.describe(option.setName('avatar'), 'avatar').setMaxLength(CHARACTER_LIMITS.avatarUrl),
    )
    .addAttachmentOption((option) => text.describe(option.setName('avatar_image'), 'avatar_image'))
    .addStringOption((option) =>
      text.describe(option.setName('greeting'), 'greeting').setMaxLength(CHARACTER_LIMITS.greeting),
    )
    .addStringOption((option) =>
      text.describe(option.setName('triggers'), 'triggers').setMaxLength(600),
    )
    .addStringOption((option) =>
      text
        .describe(option.setName('provider'), 'provider')
        .addChoices(...PROVIDER_IDS.map((id) => settingLabels.choice(`provider.${id}`, id))),
    )
    .addStringOption((option) => text.describe(option.setName('model'), 'model').setMaxLength(100))
    .addNumberOption((option) =>
      text.describe(option.setName('temperature'), 'temperature').setMinValue(0).setMaxValue(2),
    )
    .addIntegerOption((option) =>
      text.describe(option.setName('humanizer'), 'humanizer').setMinValue(0).setMaxValue(3),
    )
    .addStringOption((option) =>
      text
        .describe(option.setName('language'), 'language')
        .addChoices(text.choice('language.en', 'en'), text.choice('language.ja', 'ja')),
    );
}
