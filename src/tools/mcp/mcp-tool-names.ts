import { createHash } from 'node:crypto';
import { TOOL_NAME_PATTERN } from '../tool-definition.ts';

const MAX_NAME = 64;
const SEPARATOR = '__';

/**
 * The registry name of an MCP tool: `<server>__<tool>`, within what every vendor accepts
 * (`^[a-zA-Z0-9_-]{1,64}$`). Other characters become `_`; a name that is too long, or that
 * would collide with one already taken, is shortened and given a hash of the original so it
 * stays stable across restarts.
 */
export function namespacedToolName(
  server: string,
  tool: string,
  taken: ReadonlySet<string>,
): string {
  const sanitized = tool.replace(/[^a-zA-Z0-9_-]/g, '_') || 'tool';
  const name = `${server}${SEPARATOR}${sanitized}`;
  if (name.length <= MAX_NAME && sanitized === tool && !taken.has(name)) return name;
  const suffix = `_${createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8)}`;
  const shortened = `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
  if (!TOOL_NAME_PATTERN.test(shortened)) throw new Error(`cannot name MCP tool ${tool}`);
  return shortened;
}
