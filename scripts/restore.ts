/**
 * `npm run restore -- <backup file>`: brings a backup back into an EMPTY target — the embedded
 * database's folder under DATA_DIR (absent or empty), or, for a logical backup, the PostgreSQL
 * database of DATABASE_URL when its tables hold no rows. Refuses anything else.
 */
import { parseArgs } from 'node:util';
import { restoreBackup } from '../src/db/backup/backup.ts';
import { fail, operatorSetup } from './operator-config.ts';

const { positionals } = parseArgs({ allowPositionals: true });
const file = positionals[0];
if (file === undefined) fail('usage: npm run restore -- <backup file>');
const { target, logger } = operatorSetup();
try {
  const restored = await restoreBackup({ target, file, logger });
  const where = target.kind === 'pglite' ? target.dataDir : 'the DATABASE_URL database';
  const rows = restored.rows === undefined ? '' : `, ${restored.rows} rows`;
  process.stdout.write(
    `Restored ${file} into ${where} (${restored.kind}${rows}). Start the bot with the same encryption key.\n`,
  );
} catch (error) {
  fail(error);
}
