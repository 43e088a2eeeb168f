/**
 * A new embedded database starts from a template: the files PGlite's initdb makes, saved once
 * per PGlite version in assets/ (`npm run db:template` makes it).
 *
 * PGlite's own initdb runs a second PostgreSQL instance beside the first and copies its files
 * across: a first start peaked at over 1 GB of RSS, and 538 MB even with WebAssembly kept on
 * the baseline compiler — more than a small machine has. Loading the same files from a
 * tarball runs one instance (about 250 MB at the peak) and takes a fraction of the time.
 * Without a template for the installed version, PGlite runs initdb as before.
 *
 * A database in a directory is unpacked here, as the tarball is read (`unpackTemplate`), before
 * PGlite opens the directory: PGlite's own loading (`loadDataDir`) holds the whole tarball, its
 * 40 MB unpacked and a copy of every file at once, and the C heap those buffers came from stayed
 * ~60 MB larger for the process's life (RSS at rest after a first start 217–222 MB against
 * 154–157 after a second). An in-memory database (tests) still gets the tarball (`startingFiles`).
 */
import { createReadStream, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { LOCK_SOCKET_FILE } from './data-dir-lock.ts';
import { projectPath } from './project-path.ts';
import { TemplateUnpacker } from './template-unpacker.ts';

const ASSETS = projectPath('assets');

let installedVersion: string | undefined;

/** The installed PGlite's version (its package.json is not in its exports map); read once. */
export function pgliteVersion(): string {
  installedVersion ??= readPgliteVersion();
  return installedVersion;
}

function readPgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  let directory = path.dirname(entry);
  for (;;) {
    const manifestFile = path.join(directory, 'package.json');
    if (existsSync(manifestFile)) {
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === '@electric-sql/pglite' && manifest.version !== undefined)
        return manifest.version;
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error('the installed PGlite has no package.json');
    directory = parent;
  }
}

/** Where the template for a PGlite version lives. */
export function templateFile(version = pgliteVersion()): string {
  return path.join(ASSETS, `pglite-initdb-${version}.tar.gz`);
}

/** The tarball an in-memory database starts from, or undefined without a template (initdb). */
export function startingFiles(): Blob | undefined {
  const file = templateFile();
  if (!existsSync(file)) return undefined;
  return new Blob([readFileSync(file)]);
}

/**
 * Unpacks the template into `dataDir` when the directory holds no database yet (no
 * `PG_VERSION`); resolves whether it did (false: a database is there, or there is no template
 * for this PGlite, and PGlite runs initdb). What a start cut off while unpacking left behind is
 * removed first — all but the data directory lock's socket file (the lock is held by then).
 */
export async function unpackTemplate(dataDir: string, file = templateFile()): Promise<boolean> {
  if (existsSync(path.join(dataDir, 'PG_VERSION')) || !existsSync(file)) return false;
  for (const entry of readdirSync(dataDir)) {
    if (entry !== LOCK_SOCKET_FILE) rmSync(path.join(dataDir, entry), { recursive: true });
  }
  const unpacker = new TemplateUnpacker(dataDir);
  try {
    await pipeline(
      createReadStream(file),
      createGunzip(),
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) unpacker.write(chunk);
      },
    );
    unpacker.finish();
  } finally {
    unpacker.abandon();
  }
  return true;
}
