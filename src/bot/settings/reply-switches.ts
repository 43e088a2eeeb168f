import type { ScopeSettings } from '../../core/settings.ts';

/** Feature flag that lets a scope answer other bots (off by default: bot loops cost money). */
export const ANSWER_BOTS_FLAG = 'answerBots';
/** Feature flag that lets replies notify the users they mention (off by default: no pings). */
export const ALLOW_USER_MENTIONS_FLAG = 'allowUserMentions';

export type ReplySwitch = typeof ANSWER_BOTS_FLAG | typeof ALLOW_USER_MENTIONS_FLAG;

/** Whether a reply switch is on in a scope; both are off unless a `/config` command turned them on. */
export function isSwitchOn(settings: ScopeSettings, name: ReplySwitch): boolean {
  return settings.featureFlags[name] === true;
}
