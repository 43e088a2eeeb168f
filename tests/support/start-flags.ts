/**
 * The Node flags `npm start` runs the bot with, read from package.json, so tests and benches
 * that spawn the bot themselves start it as operators do.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MANIFEST = new URL('../../package.json', import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let built = false;

/** The words of the start script after `node`: its flags (with `--import <file>`) and the entry. */
export function startArgumentsAfterNode(): string[] {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { scripts: { start: string } };
  // `exec` makes the shell become node (signals reach the bot); it is not an argument.
  const words = manifest.scripts.start.split(/\s+/).filter((word) => word !== 'exec');
  if (words[0] !== 'node') throw new Error(`npm start does not run node: ${words[0]}`);
  return words.slice(1);
}

/** `--max-semi-space-size=8 …`: the start script's flags, without the entry and `--import`s. */
export function startNodeFlags(): string[] {
  const words = startArgumentsAfterNode();
  const flags: string[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? '';
    if (!word.startsWith('--')) break;
    // --import takes the next word; the runtime check it preloads is for people, not benches.
    if (word === '--import') index += 1;
    else flags.push(word);
  }
  return flags;
}

/**
 * The absolute path of the script `npm start` runs (dist/main.js), built first when a source is
 * newer than the last build, as npm start's prestart does (once per process).
 */
export function startEntry(): string {
  const entry = startArgumentsAfterNode().at(-1) ?? '';
  buildIfStale();
  return fileURLToPath(new URL(entry, `file://${ROOT}`));
}

/**
 * Builds dist/ when a source is newer than the last build, as npm start's prestart does (once
 * per process): whatever starts dist/main.js itself must call it first, or it runs stale code.
 */
export function buildIfStale(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT });
  built = true;
}
