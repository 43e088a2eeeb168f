import { readFileSync } from 'node:fs';
import { KNOWN_SETTINGS, readEnvFile } from './config.ts';

/** `${NAME}` in the MCP file: such names are the operator's own, read by an MCP server. */
const MCP_VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * One warning per key of `.env` the bot does not read — a typo (`DEFAULT_MODLE`) would
 * otherwise be ignored in silence and the default used — naming the closest known setting
 * when one is near. Names an MCP server takes from `${NAME}` in MCP_CONFIG count as known.
 */
export function unknownSettingWarnings(options: {
  directory: string;
  mcpConfigPath: string | undefined;
}): string[] {
  const known = new Set([...KNOWN_SETTINGS, ...mcpVariables(options.mcpConfigPath)]);
  return Object.keys(readEnvFile(options.directory))
    .filter((key) => !known.has(key))
    .map((key) => unknownSettingWarning(key));
}

/** The warning for one unknown key, with a suggestion when a known setting is close to it. */
export function unknownSettingWarning(key: string): string {
  const suggestion = closestSetting(key);
  return (
    `.env sets ${key}, which is not a setting the bot knows, so it is ignored` +
    (suggestion === undefined ? '' : ` — did you mean ${suggestion}?`)
  );
}

/** The known setting nearest to `key`, if it is near enough to be what was meant. */
export function closestSetting(key: string): string | undefined {
  const wanted = key.toUpperCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of KNOWN_SETTINGS) {
    const distance = editDistance(wanted, name);
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  // Two edits in five may differ: DEFAULT_MODLE → DEFAULT_MODEL, OPENAI_KEY → OPENAI_API_KEY.
  const allowed = Math.max(2, Math.round(wanted.length * 0.4));
  return best !== undefined && best.distance <= allowed ? best.name : undefined;
}

/** Levenshtein distance, with a transposition of two neighbours counted as one edit. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, row) =>
    Array.from({ length: b.length + 1 }, (_, column) =>
      row === 0 ? column : column === 0 ? row : 0,
    ),
  );
  for (let row = 1; row <= a.length; row += 1) {
    for (let column = 1; column <= b.length; column += 1) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      const current = rows[row] as number[];
      const above = rows[row - 1] as number[];
      current[column] = Math.min(
        (above[column] as number) + 1,
        (current[column - 1] as number) + 1,
        (above[column - 1] as number) + cost,
      );
      const swapped =
        row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1];
      if (swapped) {
        const twoAbove = rows[row - 2] as number[];
        current[column] = Math.min(current[column] as number, (twoAbove[column - 2] as number) + 1);
      }
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

function mcpVariables(file: string | undefined): string[] {
  if (file === undefined) return [];
  try {
    return [...readFileSync(file, 'utf8').matchAll(MCP_VARIABLE)].map((match) => match[1] ?? '');
  } catch {
    return []; // Unreadable: loading MCP_CONFIG reports that, in its own line.
  }
}
