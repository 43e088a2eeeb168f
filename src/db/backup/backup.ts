import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  openAsBlob,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip, type Gunzip } from 'node:zlib';
import { BotError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { openDatabase, type DatabaseHandle } from '../database.ts';
import {
  exportLogical,
  importLogical,
  LOGICAL_FORMAT,
  parseHeader,
  refuseOccupied,
} from './logical-backup.ts';

/** Where the bot's data lives: the embedded database's folder, or a PostgreSQL database. */
export type BackupTarget = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };

export type BackupKind = 'pglite-archive' | 'logical';

/** What createBackup writes for `target`: the embedded database's archive unless `logical`. */
export function plannedKind(target: BackupTarget, logical: boolean): BackupKind {
  return target.kind === 'pglite' && !logical ? 'pglite-archive' : 'logical';
}

/**
 * A consistent copy of the bot's data, written to `file` (gzip-compressed; mode 0600) through
 * a `.partial` file renamed at the end, so a failed backup never leaves a file that looks
 * whole. The embedded database is copied whole with PGlite's dumpDataDir (its lock refuses
 * while the bot runs on it: stop the bot first); PostgreSQL — or the embedded database when
 * `logical` — is exported as logical JSON lines from one snapshot, safe while the bot runs,
 * streamed from a cursor to the file so memory does not grow with the data.
 */
export async function createBackup(options: {
  target: BackupTarget;
  logical: boolean;
  file: string;
  logger: Logger;
}): Promise<{ kind: BackupKind; bytes: number }> {
  const partial = `${options.file}.partial`;
  const handle = await open(options.target, options.logger);
  try {
    const kind = plannedKind(options.target, options.logical);
    if (kind === 'logical') await writeGzipped(partial, (write) => exportLogical(handle.db, write));
    else await writeArchive(handle, partial);
    renameSync(partial, options.file);
    return { kind, bytes: statSync(options.file).size };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    await handle.close();
  }
}

const FILE_MODE = { mode: 0o600 };

/** PGlite builds its archive in memory (dumpDataDir); it is written out as it stands. */
async function writeArchive(handle: DatabaseHandle, file: string): Promise<void> {
  if (handle.dumpDataDir === undefined)
    throw new BotError('backup_kind', 'only the embedded database has a data-directory archive');
  const archive = await handle.dumpDataDir();
  await pipeline(Readable.fromWeb(archive.stream()), createWriteStream(file, FILE_MODE));
}

/** Runs `produce` with a writer into a gzip stream to `file`, waiting whenever the disk lags. */
async function writeGzipped(
  file: string,
  produce: (write: (text: string) => Promise<void>) => Promise<unknown>,
): Promise<void> {
  const gzip = createGzip();
  const written = pipeline(gzip, createWriteStream(file, FILE_MODE));
  written.catch(() => undefined);
  try {
    await produce(async (text) => {
      if (!gzip.write(text)) await once(gzip, 'drain');
    });
  } catch (error) {
    gzip.destroy();
    throw error;
  }
  gzip.end();
  await written;
}

/**
 * Brings a backup file back into an empty target: a PGlite archive only into an embedded data
 * directory that does not exist yet or is empty; a logical export into an empty embedded
 * directory or a PostgreSQL database whose tables hold no rows. Emptiness is checked before
 * anything is written — migrations included — so a restore pointed at the wrong database
 * leaves it as it was. Migrations then bring the data to this version's schema. Returns the
 * kind and the number of rows (logical) restored.
 */
export async function restoreBackup(options: {
  target: BackupTarget;
  file: string;
  logger: Logger;
}): Promise<{ kind: BackupKind; rows: number | undefined }> {
  const kind = await backupKind(options.file);
  const { target } = options;
  if (target.kind === 'pglite') requireEmptyDirectory(target.dataDir);
  if (kind === 'pglite-archive') {
    await restoreArchive(target, options);
    return { kind, rows: undefined };
  }
  parseHeader(await firstLine(options.file));
  const handle = await open(target, options.logger);
  try {
    await refuseOccupied(handle.db);
    await handle.migrate();
    const rows = await importLogical(handle.db, lines(options.file));
    return { kind, rows };
  } finally {
    await handle.close();
  }
}

async function restoreArchive(
  target: BackupTarget,
  options: { file: string; logger: Logger },
): Promise<void> {
  if (target.kind !== 'pglite') {
    throw new BotError(
      'restore_target',
      'an embedded-database archive restores into DATA_DIR only (unset DATABASE_URL); for PostgreSQL make a logical backup (npm run backup -- --logical)',
    );
  }
  const handle = await openDatabase({
    kind: 'pglite',
    dataDir: target.dataDir,
    logger: options.logger,
    loadDataDir: await openAsBlob(options.file),
  });
  try {
    await handle.migrate();
  } finally {
    await handle.close();
  }
}

/** The backup's lines, unzipped and split as the file is read. */
function lines(file: string): AsyncIterable<string> {
  return createInterface({ input: unzipped(file), crlfDelay: Infinity });
}

async function firstLine(file: string): Promise<string | undefined> {
  const input = unzipped(file);
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) return line;
    return undefined;
  } finally {
    input.destroy();
  }
}

/** The file unzipped as it is read; a read error (a missing file) fails the stream too. */
function unzipped(file: string): Gunzip {
  const input = createReadStream(file);
  const output = createGunzip();
  input.on('error', (error) => output.destroy(error));
  output.on('close', () => input.destroy());
  return input.pipe(output);
}

/** A logical export starts (once unzipped) with its JSON header; anything else is a tarball. */
export async function backupKind(file: string): Promise<BackupKind> {
  const start = await unzippedStart(file, 64);
  return start.toString('utf8').startsWith(`{"format":"${LOGICAL_FORMAT}"`)
    ? 'logical'
    : 'pglite-archive';
}

async function unzippedStart(file: string, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of unzipped(file) as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= size) break;
    }
  } catch (error) {
    // zlib's own codes (Z_DATA_ERROR, …); a missing or unreadable file keeps its error.
    if ((error as NodeJS.ErrnoException).code?.startsWith('Z_') !== true) throw error;
    throw new BotError('restore_format', 'not a backup file (not gzip-compressed)', {
      cause: error,
    });
  }
  return Buffer.concat(chunks).subarray(0, size);
}

function requireEmptyDirectory(directory: string): void {
  if (!existsSync(directory)) return;
  const entries = readdirSync(directory).filter((entry) => entry !== '.pglite.lock');
  if (entries.length > 0) {
    throw new BotError(
      'restore_not_empty',
      `${directory} is not empty: restore into an empty DATA_DIR (move the current one aside first)`,
    );
  }
}

function open(target: BackupTarget, logger: Logger): Promise<DatabaseHandle> {
  return target.kind === 'postgres'
    ? openDatabase({ kind: 'postgres', url: target.url, logger, poolSize: 2 })
    : openDatabase({ kind: 'pglite', dataDir: target.dataDir, logger });
}
