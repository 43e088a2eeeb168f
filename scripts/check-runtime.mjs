// @ts-check
// Plain JavaScript on purpose: `npm start` preloads it (--import) under whatever Node started
// it, including one too old to load TypeScript, and it explains what to do instead of Node's
// bare ERR_UNKNOWN_FILE_EXTENSION ".ts".
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * [22, 18, 0] from an engines range ">=22.18.0".
 * @param {string | undefined} range
 * @returns {number[] | undefined}
 */
export function minimumVersion(range) {
  const match = /^\s*>=\s*(\d+)\.(\d+)\.(\d+)\s*$/.exec(range ?? '');
  return match === null ? undefined : match.slice(1, 4).map(Number);
}

/**
 * @param {string} version like "v20.20.2"
 * @param {number[]} minimum
 */
export function isOlder(version, minimum) {
  const parts = version.replace(/^v/, '').split('.').map(Number);
  for (let index = 0; index < 3; index += 1) {
    const have = parts[index] ?? 0;
    const need = minimum[index] ?? 0;
    if (have !== need) return have < need;
  }
  return false;
}

/**
 * @param {{ version: string, executable: string, required: string, bundledInstalled: boolean }} facts
 */
export function runtimeAdvice(facts) {
  const lines = [
    `Tomodachi needs Node ${facts.required} or newer; this is Node ${facts.version} (${facts.executable}).`,
  ];
  if (facts.bundledInstalled) {
    lines.push(
      'The project brings its own Node: start it with `npm start`, or call',
      `  ${path.join(root, 'node_modules/.bin/node')} src/main.ts`,
      '(under systemd or pm2, use that path as the interpreter).',
    );
  } else {
    lines.push(
      'The bundled Node runtime (the `node` package) is missing — installed with --ignore-scripts?',
      `Run \`npm ci\` with install scripts allowed, then \`npm start\`; or install Node ${facts.required}+ yourself.`,
    );
  }
  return lines.join('\n');
}

function check() {
  /** @type {unknown} */
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const range = /** @type {{ engines?: { node?: string } }} */ (manifest).engines?.node;
  const minimum = minimumVersion(range);
  if (minimum === undefined || !isOlder(process.version, minimum)) return;
  process.stderr.write(
    `${runtimeAdvice({
      version: process.version,
      executable: process.execPath,
      required: minimum.join('.'),
      bundledInstalled: existsSync(path.join(root, 'node_modules/node/bin/node')),
    })}\n`,
  );
  process.exit(1);
}

check();
