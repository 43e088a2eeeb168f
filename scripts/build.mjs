// @ts-check
// `npm run build`: src/ → dist/, the bundle `npm start` runs. esbuild erases the TypeScript types
// (so the running bot does not load Node's TypeScript stripper, amaro: about 17 MB of RSS) and
// joins the ~400 source modules and the packages they import into dist/main.js, with what loads
// later (each start-up phase's modules, the vendors' SDKs, the tokenizers) in chunks under
// dist/chunks/, still loaded only when first needed. A start no longer resolves, reads and
// compiles about a thousand files one by one (Node reads the nearest package.json of each):
// measured on PostgreSQL (npm run bench startup), spawn → gateway IDENTIFY 1.54 → 0.71–0.85 s,
// CPU until connected 1.80 → 0.79–0.97 s, RSS at rest 131 → 112–116 MB (with bundleOptions'
// minified ASCII output).
//
// Packages that find files of their own at run time stay outside the bundle, loaded from
// node_modules as before: native addons, WebAssembly and its data files (PGlite, opusscript),
// worker threads (pino's transports), optional codecs (@discordjs/voice).
// Plain JavaScript, like check-runtime.mjs: it runs before anything is built.
//
//   node scripts/build.mjs             build
//   node scripts/build.mjs --readable  build with the comments and indentation kept (to read a
//                                      stack trace against the code; kept until the next build)
//   node scripts/build.mjs --if-stale  build only when a source, the installed packages or the
//                                      Node running it changed since the last build (npm start
//                                      runs this first: an edit or an `npm ci` is rebuilt)
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
// Under a Node too old to run the bot: the same advice `npm start` gives, and exit 1.
import './check-runtime.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE = path.join(root, 'src');
const OUTPUT = path.join(root, 'dist');
/** Written last: its time is the build's, its text the Node and esbuild that built it. */
const STAMP = '.build-stamp';
/** npm rewrites it on every install: the bundled packages may have changed. */
const INSTALLED = path.join(root, 'node_modules', '.package-lock.json');

/**
 * Packages loaded from node_modules at run time, not bundled: each finds files of its own
 * beside its code (a native addon, WebAssembly, a worker's script, a data file) or looks for
 * optional ones, which a bundle would move or hide.
 */
export const EXTERNAL_PACKAGES = [
  '@electric-sql/pglite', // WebAssembly and its data files, found from its own URL
  '@discordjs/voice', // looks for optional codecs and encryption libraries by name
  '@snazzah/davey', // native addon (voice encryption)
  '@napi-rs/canvas', // native addon (charts)
  'opusscript', // WebAssembly file beside its code
  'pino', // transports run in worker threads started from its own files
  'pino-pretty', // loaded by name when logs are pretty (createRequire)
  'bufferutil', // optional native helpers ws and discord.js look for
  'utf-8-validate',
  'zlib-sync',
];

/**
 * esbuild's options for the bundle written to `outdir`. By default without comments and
 * indentation: V8 keeps each loaded file's text for the process's life, as two bytes per
 * character when one character is outside Latin-1 (the comments of discord.js and undici hold
 * typographic quotes): 10.2 MB of script text at rest, 5.8 MB once minified and made ASCII.
 * `readable` keeps both, for reading a stack trace against the code.
 * @param {string} outdir
 * @param {{ readable?: boolean }} [options]
 * @returns {import('esbuild').BuildOptions}
 */
export function bundleOptions(outdir, options = {}) {
  const readable = options.readable === true;
  return {
    absWorkingDir: root,
    entryPoints: { main: path.join(SOURCE, 'main.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    chunkNames: 'chunks/[name]-[hash]',
    external: EXTERNAL_PACKAGES,
    minifyWhitespace: !readable,
    // The packages' licence notices, in a .LEGAL.txt file beside each output file.
    legalComments: readable ? 'eof' : 'external',
    // Names stay as written: errors are told apart by their `name`, logs show class names.
    keepNames: true,
    // Bundled CommonJS packages call require() for Node's modules and the external packages.
    banner: {
      js: "import { createRequire as bundleCreateRequire } from 'node:module'; const require = bundleCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
    metafile: true,
  };
}

/**
 * The code with every UTF-16 unit above U+007F written as a `\uXXXX` escape. esbuild escapes
 * strings and identifiers itself but leaves regular expression literals as written; in one, the
 * escape means the same unit (with the `u` flag, an escaped surrogate pair the same code point),
 * and a backslash before the character (an identity escape, only without `u`) is dropped with it.
 * @param {string} code
 */
export function asciiOnly(code) {
  return code.replace(
    /(\\*)([\u0080-\uffff])/g,
    (_match, /** @type {string} */ backslashes, /** @type {string} */ unit) => {
      const kept = backslashes.length % 2 === 1 ? backslashes.slice(1) : backslashes;
      return `${kept}\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
    },
  );
}

/**
 * Rewrites each JavaScript file under `directory` as ASCII (asciiOnly).
 * @param {string} directory
 */
function writeAscii(directory) {
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const code = readFileSync(file, 'utf8');
    const ascii = asciiOnly(code);
    if (ascii !== code) writeFileSync(file, ascii);
  }
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

/** @param {string} esbuildVersion */
function stampText(esbuildVersion) {
  return `${process.version} esbuild ${esbuildVersion}`;
}

/** @param {string} esbuildVersion */
function isStale(esbuildVersion) {
  const stamp = path.join(OUTPUT, STAMP);
  if (!existsSync(stamp)) return true;
  if (readFileSync(stamp, 'utf8') !== stampText(esbuildVersion)) return true;
  const built = statSync(stamp).mtimeMs;
  if (existsSync(INSTALLED) && statSync(INSTALLED).mtimeMs > built) return true;
  return newestSourceChangeMs() > built;
}

/** The chunk files of the last two builds, one build per line: kept for running processes. */
const KEPT_CHUNKS = '.build-chunks';
/** dist/'s own files; anything else there (an older build's layout) is removed. */
const DIST_FILES = new Set(['main.js', 'main.js.LEGAL.txt', 'chunks', STAMP, KEPT_CHUNKS]);

/**
 * Builds into a fresh directory, then moves the files into `output` (dist/): the chunks first (their names
 * carry their content's hash), then main.js, so a start never meets a half-written build. A bot
 * already running loads its later chunks by their old names: the chunks of the build before
 * stay, so `npm run build` (or `npm ci`) beside a running bot does not break its next turn.
 * @param {typeof import('esbuild')} esbuild
 * @param {{ output: string; readable: boolean }} options
 * @returns {Promise<{ files: number; inputs: number }>}
 */
export async function build(esbuild, options) {
  const { output } = options;
  const staging = `${output}.${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const result = await esbuild.build(bundleOptions(staging, options));
    if (!options.readable) writeAscii(staging);
    const chunks = readdirSync(path.join(staging, 'chunks'));
    mkdirSync(path.join(output, 'chunks'), { recursive: true });
    for (const chunk of chunks) {
      const target = path.join(output, 'chunks', chunk);
      if (!existsSync(target)) renameSync(path.join(staging, 'chunks', chunk), target);
    }
    for (const file of readdirSync(staging).filter((name) => name.startsWith('main.js'))) {
      renameSync(path.join(staging, file), path.join(output, file));
    }
    keepChunksOf(output, chunks);
    writeFileSync(path.join(output, STAMP), stampText(esbuild.version));
    const metafile = result.metafile ?? { inputs: {}, outputs: {} };
    return {
      files: Object.keys(metafile.outputs).filter((file) => file.endsWith('.js')).length,
      inputs: Object.keys(metafile.inputs).length,
    };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Removes the chunks neither this build nor the one before uses, and what an older layout of
 * dist/ left (a file per module).
 * @param {string} output
 * @param {string[]} chunks this build's
 */
function keepChunksOf(output, chunks) {
  const record = path.join(output, KEPT_CHUNKS);
  const before = existsSync(record) ? (readFileSync(record, 'utf8').split('\n')[0] ?? '') : '';
  const kept = new Set([...chunks, ...before.split(' ')]);
  for (const chunk of readdirSync(path.join(output, 'chunks'))) {
    if (!kept.has(chunk)) rmSync(path.join(output, 'chunks', chunk), { force: true });
  }
  for (const entry of readdirSync(output)) {
    if (!DIST_FILES.has(entry)) rmSync(path.join(output, entry), { recursive: true, force: true });
  }
  writeFileSync(record, `${chunks.join(' ')}\n${before}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const esbuild = await import('esbuild');
  if (!process.argv.includes('--if-stale') || isStale(esbuild.version)) {
    const started = performance.now();
    const { files, inputs } = await build(esbuild, {
      output: OUTPUT,
      readable: process.argv.includes('--readable'),
    });
    process.stdout.write(
      `built dist/ (${inputs} modules in ${files} files, ${Math.round(performance.now() - started)} ms)\n`,
    );
  }
}
