import { existsSync, readdirSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { BotError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { openDatabase, type DatabaseHandle } from '../database.ts';
import { exportLogical, importLogical, LOGICAL_FORMAT } from './logical-backup.ts';

/** Where the bot's data lives: the embedded database's folder, or a PostgreSQL database. */
export type BackupTarget = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; url: string };

export type BackupKind = 'pglite-archive' | 'logical';

export interface Backup {
  kind: BackupKind;
  /** gzip-compressed: a PGlite data-directory tarball, or logical JSON lines. */
  data: Buffer;
}

/**
 * A consistent copy of the bot's data. The embedded database is copied whole with PGlite's
 * dumpDataDir (its lock refuses while the bot runs on it: stop the bot first); PostgreSQL —
 * or the embedded database when `logical` — is exported as logical JSON lines from one
 * snapshot, safe while the bot runs.
 */
export async function createBackup(options: {
  target: BackupTarget;
  logical: boolean;
  logger: Logger;
}): Promise<Backup> {
  const handle = await open(options.target, options.logger);
  try {
    if (handle.dumpDataDir !== undefined && !options.logical) {
      const archive = await handle.dumpDataDir();
      return { kind: 'pglite-archive', data: Buffer.from(await archive.arrayBuffer()) };
    }
    const lines = await exportLogical(handle.db);
    return { kind: 'logical', data: gzipSync(`${lines.join('\n')}\n`) };
  } finally {
    await handle.close();
  }
}

/**
 * Brings a backup back into an empty target: a PGlite archive only into an embedded data
 * directory that does not exist yet or is empty; a logical export into an empty embedded
 * directory or a PostgreSQL database whose tables hold no rows. Migrations then bring the data
 * to this version's schema. Returns the kind and the number of rows (logical) restored.
 */
export async function restoreBackup(options: {
  target: BackupTarget;
  data: Buffer;
  logger: Logger;
}): Promise<{ kind: BackupKind; rows: number | undefined }> {
  const kind = backupKind(options.data);
  const { target } = options;
  if (target.kind === 'pglite') requireEmptyDirectory(target.dataDir);
  if (kind === 'pglite-archive') {
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
      loadDataDir: new Blob([new Uint8Array(options.data)]),
    });
    try {
      await handle.migrate();
    } finally {
      await handle.close();
    }
    return { kind, rows: undefined };
  }
  const handle = await open(target, options.logger);
  try {
    await handle.migrate();
    const rows = await importLogical(
      handle.db,
      gunzipSync(options.data).toString('utf8').split('\n'),
    );
    return { kind, rows };
  } finally {
    await handle.close();
  }
}

/** A logical export starts (once unzipped) with its JSON header; anything else is a tarball. */
export function backupKind(data: Buffer): BackupKind {
  let text: string;
  try {
    text = gunzipSync(data).subarray(0, 64).toString('utf8');
  } catch (error) {
    throw new BotError('restore_format', 'not a backup file (not gzip-compressed)', {
      cause: error,
    });
  }
  return text.startsWith(`{"format":"${LOGICAL_FORMAT}"`) ? 'logical' : 'pglite-archive';
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
