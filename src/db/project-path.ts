/**
 * Files the bot reads from its own folder at run time: the migrations and the embedded
 * database's template (here, in db/) and the summary prompt (bot/context/summary/).
 *
 * They are found from the project's root — the nearest folder above this module that holds a
 * package.json — rather than from the reading module's place: the sources run from src/ (tests,
 * `node src/main.ts`) and the bundle `npm start` runs sits in dist/, where a module's code may be
 * in the entry file or in a chunk one folder deeper.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The absolute path of `segments` under the project's root. */
export function projectPath(...segments: string[]): string {
  root ??= projectRoot(path.dirname(fileURLToPath(import.meta.url)));
  return path.join(root, ...segments);
}

/** The nearest folder at or above `directory` with a package.json. */
export function projectRoot(
  directory: string,
  exists: (file: string) => boolean = existsSync,
): string {
  for (let current = directory; ; current = path.dirname(current)) {
    if (exists(path.join(current, 'package.json'))) return current;
    if (path.dirname(current) === current) {
      throw new Error(`no package.json above ${directory}: the bot's files cannot be found`);
    }
  }
}
