import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.ts';
import type { ProviderId } from '../../src/core/provider.ts';
import { auditStoredApiKeys, resealApiKeys } from '../../src/db/api-key-reseal.ts';
import {
  loadScopeSettings,
  openApiKey,
  storeApiKey,
  updateScopeSettings,
} from '../../src/db/scope-settings-repository.ts';
import { scopeSettings } from '../../src/db/schema.ts';
import { SecretBox } from '../../src/security/secret-box.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const OLD_KEY = SecretBox.generateKey();
const NEW_KEY = SecretBox.generateKey();
const beforeRotation = new SecretBox(OLD_KEY);
const duringRotation = new SecretBox(NEW_KEY, [OLD_KEY]);
const afterRotation = new SecretBox(NEW_KEY);

/** Seven guilds: enough rows for several batches of two. */
const scopes = Array.from({ length: 7 }, (_, index) => ({
  id: `10000000000000000${index}`,
  kind: 'guild' as const,
}));
const apiKeyOf = (scopeId: string) => `sk-test-key-of-${scopeId}`;

describe.each(testBackends())('encryption key rotation on $name', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
    // Five keys bound to their provider under the old key, one stored before providers were
    // recorded (legacy: scope provider anthropic), one legacy on the operator's default.
    for (const scope of scopes.slice(0, 5)) {
      await storeApiKey(database.db, {
        box: beforeRotation,
        scope,
        key: { apiKey: apiKeyOf(scope.id), provider: 'openai' },
      });
    }
    await storeLegacyKey(scopes[5]!, 'anthropic');
    await storeLegacyKey(scopes[6]!, undefined);
  });
  afterAll(() => database.dispose());

  async function storeLegacyKey(
    scope: { id: string; kind: 'guild' },
    provider: ProviderId | undefined,
  ): Promise<void> {
    await updateScopeSettings(database.db, scope, { provider });
    await database.db
      .update(scopeSettings)
      .set({
        apiKeyCiphertext: beforeRotation.seal(apiKeyOf(scope.id), `scope:${scope.id}:api_key`),
      })
      .where(sql`${scopeSettings.scopeId} = ${scope.id}`);
  }

  it('opens values sealed under a previous key while they wait to be resealed', async () => {
    const settings = await loadScopeSettings(database.db, scopes[0]!.id);
    expect(openApiKey({ box: duringRotation, settings, provider: 'openai' })).toBe(
      apiKeyOf(scopes[0]!.id),
    );
    expect(await auditStoredApiKeys(database.db, duringRotation)).toEqual({
      pending: 7,
      unreadable: 0,
    });
  });

  it('reseals every old-key value in batches, binding legacy values to their provider', async () => {
    const versionsBefore = await versions();
    const report = await resealApiKeys({
      db: database.db,
      box: duringRotation,
      defaultProvider: 'google',
      logger: silentLogger,
      batchSize: 2,
    });
    expect(report).toEqual({ resealed: 7, unreadable: 0 });
    expect(await auditStoredApiKeys(database.db, duringRotation)).toEqual({
      pending: 0,
      unreadable: 0,
    });
    const versionsAfter = await versions();
    for (const scope of scopes) expect(versionsAfter[scope.id]).toBe(versionsBefore[scope.id]! + 1);
    // A second pass has nothing left to do.
    expect(
      await resealApiKeys({
        db: database.db,
        box: duringRotation,
        defaultProvider: 'google',
        logger: silentLogger,
      }),
    ).toEqual({ resealed: 0, unreadable: 0 });
  });

  it('loses nothing once the old key is removed', async () => {
    const expected: Record<string, ProviderId> = {
      [scopes[5]!.id]: 'anthropic',
      [scopes[6]!.id]: 'google', // the operator's default when the pass ran
    };
    for (const scope of scopes) {
      const settings = await loadScopeSettings(database.db, scope.id);
      const provider = expected[scope.id] ?? 'openai';
      expect(openApiKey({ box: afterRotation, settings, provider })).toBe(apiKeyOf(scope.id));
    }
    const legacyOnDefault = await loadScopeSettings(database.db, scopes[6]!.id);
    expect(() =>
      openApiKey({ box: afterRotation, settings: legacyOnDefault, provider: 'openai' }),
    ).toThrow(expect.objectContaining({ code: 'secret_wrong_provider' }));
  });

  it('counts a value no configured key opens, and leaves it alone', async () => {
    const stray = { id: '200000000000000000', kind: 'guild' as const };
    await storeApiKey(database.db, {
      box: new SecretBox(SecretBox.generateKey()),
      scope: stray,
      key: { apiKey: 'sk-lost', provider: 'openai' },
    });
    const before = await loadScopeSettings(database.db, stray.id);
    expect(
      await resealApiKeys({
        db: database.db,
        box: duringRotation,
        defaultProvider: 'google',
        logger: silentLogger,
      }),
    ).toEqual({ resealed: 0, unreadable: 1 });
    expect(await auditStoredApiKeys(database.db, afterRotation)).toEqual({
      pending: 0,
      unreadable: 1,
    });
    expect((await loadScopeSettings(database.db, stray.id)).apiKeyCiphertext).toBe(
      before.apiKeyCiphertext,
    );
  });

  async function versions(): Promise<Record<string, number>> {
    const rows = await database.db
      .select({ scopeId: scopeSettings.scopeId, version: scopeSettings.version })
      .from(scopeSettings);
    return Object.fromEntries(rows.map((row) => [row.scopeId, row.version]));
  }
});
