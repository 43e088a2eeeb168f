/**
 * The Node flags `npm start` runs the bot with, read from package.json, so tests and benches
 * that spawn the bot themselves start it as operators do.
 */
import { readFileSync } from 'node:fs';

const MANIFEST = new URL('../../package.json', import.meta.url);

/** `--max-semi-space-size=8 …`: the words of the start script between `node` and the entry. */
export function startNodeFlags(): string[] {
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as { scripts: { start: string } };
  // `exec` makes the shell become node (signals reach the bot); it is not a flag.
  const words = manifest.scripts.start.split(/\s+/).filter((word) => word !== 'exec');
  if (words[0] !== 'node') throw new Error(`npm start does not run node: ${words[0]}`);
  const flags: string[] = [];
  for (let index = 1; index < words.length; index += 1) {
    const word = words[index] ?? '';
    if (!word.startsWith('--')) break;
    // --import takes the next word; the runtime check it preloads is for people, not benches.
    if (word === '--import') index += 1;
    else flags.push(word);
  }
  return flags;
}
