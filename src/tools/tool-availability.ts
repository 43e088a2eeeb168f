import type { ToolContext } from '../core/tool.ts';
import type { ToolAvailability } from './tool-definition.ts';

/** Discord's Administrator bit: a member holding it holds every permission. */
const ADMINISTRATOR = 1n << 3n;

/** The flag that switches a built-in tool in a scope's settings: `tools.<name>`. */
export function toolFlag(toolName: string): string {
  return `tools.${toolName}`;
}

/** The flag that switches an MCP server's tools in a scope's settings: `mcp.<server>`. */
export function mcpServerFlag(serverName: string): string {
  return `mcp.${serverName}`;
}

/**
 * Why a tool may not run in this context, or undefined when it may. The reason is written for
 * the model (it reads it when it calls a tool it should not have).
 */
export function unavailableReason(
  toolName: string,
  availability: ToolAvailability,
  context: ToolContext,
): string | undefined {
  const inGuild = context.guildId !== undefined;
  if (availability.where === 'guild' && !inGuild) return 'it only works in a server, not in DMs';
  if (availability.where === 'dm' && inGuild) return 'it only works in direct messages';
  const flag = availability.flag ?? toolFlag(toolName);
  if (!isFlagOn(context.featureFlags, flag, availability.enabledByDefault)) {
    return `it is turned off here (feature flag ${flag})`;
  }
  const required = availability.requiredMemberPermissions;
  if (required !== undefined && required !== 0n && inGuild) {
    if (!holdsPermissions(context.memberPermissions, required)) {
      return 'the member asking lacks the Discord permissions it needs';
    }
  }
  const missing = (availability.requiredCapabilities ?? []).filter(
    (capability) => !(context.providerCapabilities ?? []).includes(capability),
  );
  if (missing.length > 0) return `the current model does not support ${missing.join(', ')}`;
  return undefined;
}

/** A flag is on when set to `true`, off when set to `false`, otherwise its default. */
export function isFlagOn(
  flags: Readonly<Record<string, unknown>> | undefined,
  flag: string,
  enabledByDefault: boolean,
): boolean {
  const value = flags?.[flag];
  return typeof value === 'boolean' ? value : enabledByDefault;
}

/** True when the decimal permission string holds every bit of `required` (or Administrator). */
export function holdsPermissions(permissions: string | undefined, required: bigint): boolean {
  if (permissions === undefined || !/^\d+$/.test(permissions)) return false;
  const held = BigInt(permissions);
  return (held & ADMINISTRATOR) !== 0n || (held & required) === required;
}
