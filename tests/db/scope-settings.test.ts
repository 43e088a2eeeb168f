import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretError } from '../../src/core/errors.ts';
import { defaultScopeSettings } from '../../src/core/settings.ts';
import {
  loadScopeSettings,
  openApiKey,
  resetScopeSettings,
  storeApiKey,
  updateScopeSettings,
  updateScopeSettingsIfUnchanged,
} from '../../src/db/scope-settings-repository.ts';
import { SecretBox } from '../../src/security/secret-box.ts';
import { testBackends, type TestDatabase } from '../support/test-database.ts';

const GUILD = { id: '123456789012345678', kind: 'guild' as const };
const DM_USER = { id: '223456789012345678', kind: 'dm' as const };
const API_KEY = 'sk-test-THIS-IS-A-SECRET-KEY-0123456789';

describe.each(testBackends())('scope settings on $name', (backend) => {
  let database: TestDatabase;
  const box = new SecretBox(SecretBox.generateKey());

  beforeAll(async () => {
    database = await backend.open();
    await database.migrate();
  });
  afterAll(() => database.dispose());

  it('gives a scope that never ran a command the defaults (humanizer 1, messages, coalesce)', async () => {
    const settings = await loadScopeSettings(database.db, '999999999999999999');
    expect(settings).toMatchObject({
      humanizerDegree: 1,
      deliveryMode: 'messages',
      queuePolicy: 'coalesce',
      provider: undefined,
    });
  });

  it('stores an API key that is not readable in the table and round-trips through the box', async () => {
    await storeApiKey(database.db, {
      box,
      scope: GUILD,
      key: { apiKey: API_KEY, provider: 'openai' },
    });
    const rows = await database.rawQuery(sql`select * from scope_settings`);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(API_KEY);
    expect(stored).not.toContain(Buffer.from(API_KEY).toString('base64'));
    const settings = await loadScopeSettings(database.db, GUILD.id);
    expect(openApiKey({ box, settings, provider: 'openai' })).toBe(API_KEY);
  });

  it('refuses to open a key for another provider than the one it was stored for', async () => {
    const settings = await loadScopeSettings(database.db, GUILD.id);
    expect(() => openApiKey({ box, settings, provider: 'anthropic' })).toThrow(
      expect.objectContaining({ code: 'secret_wrong_provider' }),
    );
    // The provider in the stored value is authenticated: rewriting it breaks the seal.
    const relabelled = {
      ...settings,
      apiKeyCiphertext: settings.apiKeyCiphertext?.replace(/^openai:/, 'anthropic:'),
    };
    expect(() => openApiKey({ box, settings: relabelled, provider: 'anthropic' })).toThrow(
      expect.objectContaining({ code: 'secret_tampered' }),
    );
  });

  it('still opens a key stored before the provider was recorded', () => {
    const legacy = {
      ...defaultScopeSettings(GUILD.id),
      apiKeyCiphertext: box.seal(API_KEY, `scope:${GUILD.id}:api_key`),
    };
    expect(openApiKey({ box, settings: legacy, provider: 'google' })).toBe(API_KEY);
  });

  it('refuses to open a key with the wrong encryption key instead of returning garbage', async () => {
    const settings = await loadScopeSettings(database.db, GUILD.id);
    const otherBox = new SecretBox(SecretBox.generateKey());
    expect(() => openApiKey({ box: otherBox, settings, provider: 'openai' })).toThrow(SecretError);
  });

  it('refuses a sealed key copied into another scope', async () => {
    const guild = await loadScopeSettings(database.db, GUILD.id);
    const stolen = {
      ...(await loadScopeSettings(database.db, DM_USER.id)),
      apiKeyCiphertext: guild.apiKeyCiphertext,
    };
    expect(() => openApiKey({ box, settings: stolen, provider: 'openai' })).toThrow(SecretError);
  });

  it('keeps DM settings apart from guild settings and bumps the version on change', async () => {
    const before = await loadScopeSettings(database.db, GUILD.id);
    await updateScopeSettings(database.db, DM_USER, { personaName: 'Mika', humanizerDegree: 3 });
    const guild = await updateScopeSettings(database.db, GUILD, { triggerWords: ['tomo', 'c++'] });
    const dm = await loadScopeSettings(database.db, DM_USER.id);
    expect(dm).toMatchObject({ personaName: 'Mika', humanizerDegree: 3, triggerWords: [] });
    expect(guild).toMatchObject({ personaName: undefined, triggerWords: ['tomo', 'c++'] });
    expect(guild.version).toBeGreaterThan(before.version);
  });

  it('clears a nullable setting back to the operator default', async () => {
    await updateScopeSettings(database.db, GUILD, { model: 'gpt-5-mini' });
    const cleared = await updateScopeSettings(database.db, GUILD, { model: undefined });
    expect(cleared.model).toBeUndefined();
  });

  it('resets every setting and the key in one write that still bumps the version', async () => {
    const scope = { id: '323456789012345678', kind: 'guild' as const };
    await storeApiKey(database.db, { box, scope, key: { apiKey: API_KEY, provider: 'google' } });
    const changed = await updateScopeSettings(database.db, scope, {
      provider: 'anthropic',
      personaName: 'Mika',
      humanizerDegree: 3,
      triggerWords: ['tomo'],
      autoReplyChannelIds: ['423456789012345678'],
      autoReplyEveryN: 5,
      queueDepth: 9,
      dailyTokenBudget: 1_000,
      featureFlags: { 'tools.fetch_url': true },
    });
    const reset = await resetScopeSettings(database.db, scope);
    expect(reset.version).toBeGreaterThan(changed.version);
    expect({ ...reset, version: 0 }).toEqual(defaultScopeSettings(scope.id));
  });

  it('rejects an out-of-range humanizer degree at the database', async () => {
    await expect(
      database.rawQuery(
        sql`update scope_settings set humanizer_degree = 7 where scope_id = ${GUILD.id}`,
      ),
    ).rejects.toThrow();
  });

  it('applies a list edit only when nobody changed the scope since it was read', async () => {
    const scope = { id: '323456789012345678', kind: 'guild' as const };
    const fresh = await loadScopeSettings(database.db, scope.id);
    const [first, second] = await Promise.all([
      updateScopeSettingsIfUnchanged(database.db, scope, fresh, { triggerWords: ['tomo'] }),
      updateScopeSettingsIfUnchanged(database.db, scope, fresh, { triggerWords: ['bot'] }),
    ]);
    expect([first, second].filter((result) => result !== undefined)).toHaveLength(1);

    const read = await loadScopeSettings(database.db, scope.id);
    const [a, b] = await Promise.all([
      updateScopeSettingsIfUnchanged(database.db, scope, read, {
        triggerWords: [...read.triggerWords, 'hey'],
      }),
      updateScopeSettingsIfUnchanged(database.db, scope, read, {
        triggerWords: [...read.triggerWords, 'yo'],
      }),
    ]);
    expect([a, b].filter((result) => result !== undefined)).toHaveLength(1);
    const after = await loadScopeSettings(database.db, scope.id);
    expect(after.version).toBe(read.version + 1);
    const retried = await updateScopeSettingsIfUnchanged(database.db, scope, after, {
      triggerWords: [...after.triggerWords, 'again'],
    });
    expect(retried?.triggerWords).toHaveLength(after.triggerWords.length + 1);
  });
});
