import type { CommandContext } from '../slash-command.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

/**
 * Refuses outside a server. Guild-only commands are registered for guilds only, so this is the
 * run-time backstop (an old registration, a client that cached the command list).
 */
export function requireGuild(context: CommandContext): void {
  if (context.scope.kind !== 'guild') throw new CommandRefusal({ kind: 'guild_only' });
}
