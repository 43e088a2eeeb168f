import type { ToolContext } from '../../core/tool.ts';

/**
 * Whose time zone a tool reads when the model names none, as the tool's description tells the
 * model: `/config timezone` is set per server, and in DMs per member (a DM's scope is its member).
 */
export function whoseTimeZone(context: ToolContext): string {
  return context.guildId === undefined
    ? "this member's own time zone (set with /config timezone in this DM; UTC if unset)"
    : "this server's time zone";
}
