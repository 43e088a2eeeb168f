import { ToolError } from '../../core/errors.ts';
import type { ScopeKind } from '../../core/settings.ts';
import type { ToolContext } from '../../core/tool.ts';

/**
 * The scope a tool writes into, checked against the rest of the context: a guild's scope is the
 * guild, a DM's scope is its user. A context that mixes them is refused rather than trusted,
 * so a wiring mistake cannot write one scope's data into another.
 */
export function scopeOfContext(context: ToolContext): { id: string; kind: ScopeKind } {
  if (context.guildId !== undefined) {
    if (context.scopeId !== context.guildId) {
      throw new ToolError('scope', 'unavailable: the context names two different servers');
    }
    return { id: context.scopeId, kind: 'guild' };
  }
  if (context.scopeId !== context.userId) {
    throw new ToolError('scope', 'unavailable: a direct-message scope must be its user');
  }
  return { id: context.scopeId, kind: 'dm' };
}
