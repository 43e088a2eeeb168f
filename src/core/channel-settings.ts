import { defaultScopeSettings, type HumanizerDegree, type ScopeSettings } from './settings.ts';

/**
 * What one channel overrides of its server's settings. `undefined` means "the server's value".
 * A persona is one piece (name and instructions together): a channel never mixes its own name
 * with the server's instructions.
 */
export interface ChannelOverrides {
  channelId: string;
  persona: { name: string; instructions: string } | undefined;
  humanizerDegree: HumanizerDegree | undefined;
}

/** Where a value in effect comes from, most specific first. */
export type SettingLevel = 'channel' | 'server' | 'default';

export function noChannelOverrides(channelId: string): ChannelOverrides {
  return { channelId, persona: undefined, humanizerDegree: undefined };
}

/** The scope's settings as they apply in one channel: the channel's values win. */
export function applyChannelOverrides(
  settings: ScopeSettings,
  overrides: ChannelOverrides,
): ScopeSettings {
  const { persona, humanizerDegree } = overrides;
  if (persona === undefined && humanizerDegree === undefined) return settings;
  return {
    ...settings,
    ...(persona === undefined
      ? {}
      : { personaName: persona.name, personaInstructions: persona.instructions }),
    humanizerDegree: humanizerDegree ?? settings.humanizerDegree,
  };
}

/** Which level the persona and the humanizer in effect come from (for `/config show`). */
export function channelSettingLevels(
  settings: ScopeSettings,
  overrides: ChannelOverrides,
): { persona: SettingLevel; humanizer: SettingLevel } {
  const defaults = defaultScopeSettings(settings.scopeId);
  const serverPersona =
    settings.personaName !== undefined || settings.personaInstructions !== undefined;
  return {
    persona: overrides.persona !== undefined ? 'channel' : serverPersona ? 'server' : 'default',
    humanizer:
      overrides.humanizerDegree !== undefined
        ? 'channel'
        : // The column is never null: a server value equal to the default reads as the default.
          settings.humanizerDegree !== defaults.humanizerDegree
          ? 'server'
          : 'default',
  };
}
