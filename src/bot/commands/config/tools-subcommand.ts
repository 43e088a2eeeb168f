import type { ChatInputCommandInteraction } from 'discord.js';
import type { ScopeSettings } from '../../../core/settings.ts';
import { isFlagOn } from '../../../tools/tool-availability.ts';
import type { ToolSwitch } from '../../../tools/tool-catalog.ts';
import type { Locale } from '../../i18n/locale.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { CommandContext } from '../slash-command.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { currentSettings, saveSettings } from './settings-writes.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

const MAX_CHOICES = 25;

const text = commandText({
  en: {
    description: 'Built-in tools and MCP servers I may use here',
    'list.description': 'Which tools and MCP servers are on here',
    'enable.description': 'Let me use a tool or MCP server here',
    'disable.description': 'Stop me from using a tool or MCP server here',
    name: 'The tool or MCP server',
    title: 'Tools here',
    tool: 'tool',
    mcp: 'MCP server',
    none: 'No tools are installed.',
    unknown: 'There is no tool or MCP server named `{name}`. Available: {available}.',
    enabled: '`{name}` ({kind}) is now **on** here.',
    disabled: '`{name}` ({kind}) is now **off** here.',
  },
  ja: {
    description: 'ここで使える組み込みツールとMCPサーバー',
    'list.description': 'ここで有効なツールとMCPサーバー',
    'enable.description': 'ここでツールかMCPサーバーを使えるようにする',
    'disable.description': 'ここでツールかMCPサーバーを使わないようにする',
    name: 'ツールまたはMCPサーバー',
    title: 'ここのツール',
    tool: 'ツール',
    mcp: 'MCPサーバー',
    none: 'ツールはインストールされていません。',
    unknown: '`{name}` というツールやMCPサーバーはありません。使えるもの：{available}',
    enabled: '`{name}`（{kind}）をここで **オン** にしました。',
    disabled: '`{name}`（{kind}）をここで **オフ** にしました。',
  },
});

/**
 * `/config tools list | enable | disable`: one switch per built-in tool (or group of tools
 * sharing a flag) and per operator MCP server, stored as feature flags in the scope's settings.
 */
export const toolsSubcommand: ConfigSubcommand = {
  name: 'tools',
  define: (builder) =>
    builder.addSubcommandGroup((group) =>
      text
        .describe(group.setName('tools'), 'description')
        .addSubcommand((sub) => text.describe(sub.setName('list'), 'list.description'))
        .addSubcommand((sub) =>
          text
            .describe(sub.setName('enable'), 'enable.description')
            .addStringOption((option) =>
              text.describe(option.setName('name'), 'name').setRequired(true).setAutocomplete(true),
            ),
        )
        .addSubcommand((sub) =>
          text
            .describe(sub.setName('disable'), 'disable.description')
            .addStringOption((option) =>
              text.describe(option.setName('name'), 'name').setRequired(true).setAutocomplete(true),
            ),
        ),
    ),
  async execute(interaction, context) {
    const action = interaction.options.getSubcommand();
    if (action === 'list') await listSwitches(interaction, context);
    else await flipSwitch(interaction, context, action === 'enable');
  },
  async autocomplete(interaction, context) {
    const typed = interaction.options.getFocused().trim().toLowerCase();
    const choices = context.services.tools
      .switches()
      .filter((item) => item.name.toLowerCase().includes(typed))
      .slice(0, MAX_CHOICES)
      .map((item) => ({
        name: `${item.name} (${text.get(context.locale, item.kind)})`,
        value: item.name,
      }));
    await interaction.respond(choices);
  },
};

async function listSwitches(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  const switches = context.services.tools.switches();
  const settings = await context.services.settings.get(context.scope.id);
  const body =
    switches.length === 0
      ? text.get(context.locale, 'none')
      : describeSwitches(context.locale, switches, settings);
  await respond(interaction, `**${text.get(context.locale, 'title')}**\n${body}`);
}

/** One line per switch: on/off here, name, and whether it is a tool or an MCP server. */
export function describeSwitches(
  locale: Locale,
  switches: readonly ToolSwitch[],
  settings: ScopeSettings,
): string {
  return switches
    .map((item) => {
      const on = isFlagOn(settings.featureFlags, item.flag, item.enabledByDefault);
      return `${on ? '🟢' : '⚪'} \`${item.name}\` (${text.get(locale, item.kind)})`;
    })
    .join('\n');
}

async function flipSwitch(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  enabled: boolean,
): Promise<void> {
  const { locale } = context;
  const name = interaction.options.getString('name', true).trim();
  const switches = context.services.tools.switches();
  const found = switches.find((item) => item.name.toLowerCase() === name.toLowerCase());
  if (found === undefined) {
    const available = switches.map((item) => `\`${item.name}\``).join(', ') || '—';
    throw new CommandRefusal(text.refusal('unknown', { name, available }));
  }
  const current = await currentSettings(interaction, context);
  await saveSettings(
    interaction,
    context,
    { featureFlags: { ...current.featureFlags, [found.flag]: enabled } },
    current,
  );
  await respond(
    interaction,
    text.get(locale, enabled ? 'enabled' : 'disabled', {
      kind: text.get(locale, found.kind),
      name: found.name,
    }),
  );
}
