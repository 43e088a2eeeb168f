/**
 * `npm run backup [-- --out <file> | --logical]`: a consistent copy of the bot's data.
 * Embedded database: PGlite's data-directory archive (stop the bot first: its lock refuses a
 * second process). PostgreSQL: a logical export from one snapshot (safe while the bot runs);
 * pg_dump remains the tool of record there.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createBackup, plannedKind } from '../src/db/backup/backup.ts';
import { GENERATED_KEY_FILE } from '../src/security/encryption-key.ts';
import { fail, operatorSetup } from './operator-config.ts';

const { values } = parseArgs({
  options: { out: { type: 'string' }, logical: { type: 'boolean', default: false } },
});
const { config, target, logger } = operatorSetup();
try {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const kindName = plannedKind(target, values.logical);
  const extension = kindName === 'logical' ? 'jsonl.gz' : 'tar.gz';
  const file = path.resolve(
    values.out ?? path.join('backups', `tomodachi-${kindName}-${stamp}.${extension}`),
  );
  mkdirSync(path.dirname(file), { recursive: true });
  const backup = await createBackup({ target, logical: values.logical, file, logger });
  const lines = [`Wrote ${file} (${backup.kind}, ${backup.bytes} bytes).`];
  lines.push(
    config.encryptionKey === undefined
      ? `Also keep ${path.join(config.dataDir, GENERATED_KEY_FILE)} safe (not in this file): without it, stored API keys cannot be read.`
      : 'Also keep BOT_ENCRYPTION_KEY safe (not in this file): without it, stored API keys cannot be read.',
  );
  if (target.kind === 'postgres')
    lines.push(
      'For PostgreSQL, pg_dump is the tool of record: pg_dump -Fc "$DATABASE_URL" > bot.dump',
    );
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  fail(error);
}
