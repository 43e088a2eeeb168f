import { formatZoned, isValidTimeZone } from '../../../tools/builtin/zoned-time.ts';
import { commandText } from '../command-text.ts';
import { respond } from '../command-replies.ts';
import type { ConfigSubcommand } from './config-subcommand.ts';
import { saveSettings } from './settings-writes.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

/** Discord shows at most 25 autocomplete choices. */
const MAX_CHOICES = 25;
const ZONE_OPTION = 'zone';
const UTC = 'UTC';

let zonesListed: readonly string[] | undefined;

/**
 * Every IANA zone this runtime knows (Intl lists UTC under its own name only on some versions),
 * listed on the first autocomplete, not at import: most processes never list them.
 */
function knownZones(): readonly string[] {
  zonesListed ??= [...new Set([UTC, ...Intl.supportedValuesOf('timeZone')])];
  return zonesListed;
}

const text = commandText({
  en: {
    description: 'My time zone here (for the time, reminders and dates); in DMs, yours',
    zone: 'An IANA time zone such as Asia/Tokyo; leave empty for UTC',
    done: 'Time zone: **{zone}** (it is {now} there now).',
    cleared: 'Time zone back to the default: **UTC**.',
    unknown:
      '`{zone}` is not a time zone I know. Pick one from the suggestions, e.g. `Europe/Paris`.',
  },
  ja: {
    description: 'ここでのタイムゾーン（時刻・リマインダー・日付）。DMではあなたのもの',
    zone: 'Asia/Tokyo のようなIANAタイムゾーン。空欄ならUTC',
    done: 'タイムゾーン：**{zone}**（現地の現在時刻 {now}）',
    cleared: 'タイムゾーンをデフォルトの **UTC** に戻しました。',
    unknown: '`{zone}` は知らないタイムゾーンです。候補から選んでください（例：`Asia/Tokyo`）。',
  },
});

/**
 * `/config timezone`: the scope's IANA time zone, which `current_time`, `set_reminder` ("at
 * 9:00") and the context's date line use. In a server it is the server's; in DMs the scope is
 * the member, so each member sets their own.
 */
export const timezoneSubcommand: ConfigSubcommand = {
  name: 'timezone',
  define: (builder) =>
    builder.addSubcommand((sub) =>
      text
        .describe(sub.setName('timezone'), 'description')
        .addStringOption((option) =>
          text.describe(option.setName(ZONE_OPTION), 'zone').setAutocomplete(true),
        ),
    ),
  async execute(interaction, context) {
    const { locale } = context;
    const typed = interaction.options.getString(ZONE_OPTION)?.trim() ?? '';
    if (typed === '') {
      await saveSettings(interaction, context, { timezone: undefined });
      await respond(interaction, text.get(locale, 'cleared'));
      return;
    }
    const zone = canonicalZone(typed);
    if (zone === undefined) throw new CommandRefusal(text.refusal('unknown', { zone: typed }));
    await saveSettings(interaction, context, { timezone: zone });
    const now = formatZoned(context.services.clock.now(), zone).iso.slice(0, 16).replace('T', ' ');
    await respond(interaction, text.get(locale, 'done', { zone, now }));
  },
  async autocomplete(interaction) {
    await interaction.respond(
      zoneSuggestions(interaction.options.getFocused()).map((zone) => ({
        name: zone,
        value: zone,
      })),
    );
  },
};

/** The zone's canonical spelling ("asia/tokyo" → "Asia/Tokyo"), or undefined when unknown. */
export function canonicalZone(typed: string): string | undefined {
  if (!isValidTimeZone(typed)) return undefined;
  const lower = typed.toLowerCase();
  return (
    knownZones().find((zone) => zone.toLowerCase() === lower) ??
    new Intl.DateTimeFormat('en-US', { timeZone: typed }).resolvedOptions().timeZone
  );
}

/** Up to 25 zones containing what was typed (spaces match underscores: "new york"). */
export function zoneSuggestions(typed: string): string[] {
  const wanted = typed.trim().toLowerCase().replaceAll(' ', '_');
  const matches = knownZones().filter((zone) => zone.toLowerCase().includes(wanted));
  // Names that start with the typed text first: "tok" → Asia/Tokyo before others containing it.
  const starts = (zone: string) =>
    zone.toLowerCase().startsWith(wanted) || zone.toLowerCase().includes(`/${wanted}`);
  return [...matches.filter(starts), ...matches.filter((zone) => !starts(zone))].slice(
    0,
    MAX_CHOICES,
  );
}
