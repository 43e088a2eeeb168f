/**
 * A new embedded database starts from a template: the files PGlite's initdb makes, saved once
 * per PGlite version in assets/ (`npm run db:template` makes it).
 *
 * PGlite's own initdb runs a second PostgreSQL instance beside the first and copies its files
 * across: a first start peaked at over 1 GB of RSS, and 538 MB even with WebAssembly kept on
 * the baseline compiler — more than a small machine has. Loading the same files from a
 * tarball runs one instance (about 250 MB at the peak) and takes a fraction of the time.
 * Without a template for the installed version, PGlite runs initdb as before.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { projectPath } from './project-path.ts';

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

/**
 * The tarball a database in `dataDir` should start from: the template when the directory
 * holds no database yet (undefined `dataDir`: in memory) and a template for this PGlite
 * exists; otherwise undefined (an existing database, or initdb).
 */
export function startingFiles(dataDir: string | undefined): Blob | undefined {
  if (dataDir !== undefined && existsSync(path.join(dataDir, 'PG_VERSION'))) return undefined;
  const file = templateFile();
  if (!existsSync(file)) return undefined;
  return new Blob([readFileSync(file)]);
}
