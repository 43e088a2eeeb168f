// @ts-check
// `npm run build`: src/ → dist/, the TypeScript sources as the JavaScript Node runs, so a start
// does not load Node's TypeScript stripper (amaro: about 17 MB of RSS and 4 MB of heap for the
// process's life, and a pass over every module at every start). Types are erased with Node's
// own `stripTypeScriptTypes` — the same erasure `node src/main.ts` applies, blanking types with
// spaces, so line and column numbers in a stack trace are the source's — and relative `.ts`
// specifiers become `.js`. Other files under src/ (the summary prompt) are copied; tests are
// left out. Plain JavaScript, like check-runtime.mjs: it runs before anything is built.
//
//   node scripts/build.mjs             build
//   node scripts/build.mjs --if-stale  build only when a source is newer than the last build
//                                      (npm start runs this first: an edited source is rebuilt)
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import module from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
// Under a Node too old to strip types: the same advice `npm start` gives, and exit 1.
import './check-runtime.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(root, 'src');
const OUTPUT = path.join(root, 'dist');
/** Written last: its time is the build's, its text the Node that built it. */
const STAMP = '.build-stamp';

/** A relative import specifier of a TypeScript file, in quotes: './x.ts', "../y/z.ts". */
const TS_SPECIFIER = /(["'])(\.\.?\/[^"'\n]*?)\.ts\1/g;

/**
 * The module's JavaScript: types erased in place, relative `.ts` specifiers as `.js`.
 * @param {string} source
 * @param {(code: string, options: { mode: 'strip' }) => string} strip
 */
export function toJavaScript(source, strip) {
  return strip(source, { mode: 'strip' }).replace(TS_SPECIFIER, '$1$2.js$1');
}

/**
 * The files a build takes, relative to src/, directories first: no tests, no test snapshots.
 * @param {string} directory
 * @returns {string[]}
 */
function sourceFiles(directory = SOURCE) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === '__snapshots__' ? [] : sourceFiles(full);
    return entry.name.endsWith('.test.ts') ? [] : [path.relative(SOURCE, full)];
  });
}

/** The newest change under src/: a file's, or a directory's (a file added or removed). */
function newestSourceChangeMs(directory = SOURCE) {
  let newest = statSync(directory).mtimeMs;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    newest = Math.max(
      newest,
      entry.isDirectory() ? newestSourceChangeMs(full) : statSync(full).mtimeMs,
    );
  }
  return newest;
}

function isStale() {
  const stamp = path.join(OUTPUT, STAMP);
  if (!existsSync(stamp)) return true;
  if (readFileSync(stamp, 'utf8') !== process.version) return true;
  return newestSourceChangeMs() > statSync(stamp).mtimeMs;
}

/**
 * Builds into a fresh directory, then swaps it in, so a start never meets a half-written dist/.
 * @returns {number} the modules built
 */
function build() {
  const strip =
    /** @type {{ stripTypeScriptTypes?: typeof toJavaScript extends (s: string, f: infer F) => string ? F : never }} */ (
      module
    ).stripTypeScriptTypes;
  if (strip === undefined) {
    throw new Error(
      `Node ${process.version} cannot strip TypeScript types: use Node 22.18 or newer`,
    );
  }
  const staging = `${OUTPUT}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  let modules = 0;
  for (const file of sourceFiles()) {
    const from = path.join(SOURCE, file);
    const to = path.join(staging, file.replace(/\.ts$/, '.js'));
    mkdirSync(path.dirname(to), { recursive: true });
    if (file.endsWith('.ts')) {
      writeFileSync(to, toJavaScript(readFileSync(from, 'utf8'), strip));
      modules += 1;
    } else copyFileSync(from, to);
  }
  writeFileSync(path.join(staging, STAMP), process.version);
  const previous = `${OUTPUT}.old.${process.pid}`;
  if (existsSync(OUTPUT)) renameSync(OUTPUT, previous);
  try {
    renameSync(staging, OUTPUT);
  } catch (error) {
    // Another build (a second start, a test worker) swapped its own in meanwhile: the same files.
    if (!existsSync(OUTPUT)) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(previous, { recursive: true, force: true });
  return modules;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  if (!ifStale || isStale()) {
    // stripTypeScriptTypes is marked experimental; the warning would only alarm an operator.
    process.removeAllListeners('warning');
    const started = performance.now();
    const modules = build();
    process.stdout.write(
      `built dist/ (${modules} modules, ${Math.round(performance.now() - started)} ms)\n`,
    );
  }
}
