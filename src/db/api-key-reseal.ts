import { and, asc, eq, gt, isNotNull, sql } from 'drizzle-orm';
import { SecretError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { ProviderId } from '../core/provider.ts';
import { openSealedApiKey, parseSealedApiKey, sealApiKey } from '../security/api-key-seal.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { Database } from './database.ts';
import { scopeSettings } from './schema.ts';

export interface ResealReport {
  /** Values sealed under a previous key (or before the provider was recorded), now current. */
  resealed: number;
  /** Values no configured key opens: those scopes must set their key again. */
  unreadable: number;
}

export interface StoredKeyAudit {
  /** Still to reseal: under a previous key, or without a recorded provider. */
  pending: number;
  unreadable: number;
}

const DEFAULT_BATCH_SIZE = 100;

/**
 * Reseals every stored API key that is not yet sealed under the current key and bound to its
 * provider, in batches of `batchSize` rows (keyset pagination, so a large table never sits in
 * memory). Meant to run in the background at start-up after a key rotation.
 *
 * A value stored before the provider was recorded is bound to the provider the scope resolves
 * to now — its stored provider, else the operator's DEFAULT_PROVIDER — which is the vendor it
 * has been sent to until now.
 *
 * Each row is written only if it still holds the value that was read, so several processes
 * running this at once (or an admin setting a new key meanwhile) never lose a key.
 */
export async function resealApiKeys(options: {
  db: Database;
  box: SecretBox;
  defaultProvider: ProviderId;
  logger: Logger;
  batchSize?: number;
  signal?: AbortSignal;
}): Promise<ResealReport> {
  const { db, box } = options;
  const report: ResealReport = { resealed: 0, unreadable: 0 };
  let after = '';
  for (;;) {
    if (options.signal?.aborted === true) break;
    const rows = await storedKeys(db, { after, limit: options.batchSize ?? DEFAULT_BATCH_SIZE });
    const last = rows.at(-1);
    if (last === undefined) break;
    after = last.scopeId;
    for (const row of rows) {
      const stored = parseSealedApiKey(row.stored);
      if (stored.provider !== undefined && box.sealedWith(stored.sealed) === 'current') continue;
      const provider = stored.provider ?? row.provider ?? options.defaultProvider;
      let apiKey: string;
      try {
        apiKey = openSealedApiKey(box, { scopeId: row.scopeId, provider, stored: row.stored });
      } catch (error) {
        if (!(error instanceof SecretError)) throw error;
        report.unreadable += 1;
        options.logger.warn(
          { scopeId: row.scopeId, code: error.code },
          'a stored API key opens with no configured encryption key: that scope must set it again',
        );
        continue;
      }
      const resealed = sealApiKey(box, { scopeId: row.scopeId, provider, apiKey });
      const written = await db
        .update(scopeSettings)
        .set({ apiKeyCiphertext: resealed, version: sql`${scopeSettings.version} + 1` })
        .where(
          and(
            eq(scopeSettings.scopeId, row.scopeId),
            eq(scopeSettings.apiKeyCiphertext, row.stored),
          ),
        )
        .returning({ scopeId: scopeSettings.scopeId });
      report.resealed += written.length;
    }
  }
  if (report.resealed > 0 || report.unreadable > 0) {
    options.logger.info(
      { ...report },
      'stored API keys resealed under the current encryption key (see /doctor for what remains)',
    );
  }
  return report;
}

/** How many stored keys are still to reseal or cannot be opened at all (for /doctor). */
export async function auditStoredApiKeys(db: Database, box: SecretBox): Promise<StoredKeyAudit> {
  const audit: StoredKeyAudit = { pending: 0, unreadable: 0 };
  let after = '';
  for (;;) {
    const rows = await storedKeys(db, { after, limit: 1_000 });
    const last = rows.at(-1);
    if (last === undefined) return audit;
    after = last.scopeId;
    for (const row of rows) {
      const stored = parseSealedApiKey(row.stored);
      const sealedWith = box.sealedWith(stored.sealed);
      if (sealedWith === 'unknown') audit.unreadable += 1;
      else if (sealedWith === 'previous' || stored.provider === undefined) audit.pending += 1;
    }
  }
}

async function storedKeys(
  db: Database,
  page: { after: string; limit: number },
): Promise<Array<{ scopeId: string; provider: ProviderId | null; stored: string }>> {
  const rows = await db
    .select({
      scopeId: scopeSettings.scopeId,
      provider: scopeSettings.provider,
      stored: scopeSettings.apiKeyCiphertext,
    })
    .from(scopeSettings)
    .where(and(isNotNull(scopeSettings.apiKeyCiphertext), gt(scopeSettings.scopeId, page.after)))
    .orderBy(asc(scopeSettings.scopeId))
    .limit(page.limit);
  return rows.flatMap((row) => (row.stored === null ? [] : [{ ...row, stored: row.stored }]));
}
