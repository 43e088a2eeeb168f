import { and, eq, sql } from 'drizzle-orm';
import type { ProviderId } from '../core/provider.ts';
import {
  defaultScopeSettings,
  type HumanizerDegree,
  type ScopeKind,
  type ScopeSettings,
} from '../core/settings.ts';
import { openSealedApiKey, sealApiKey } from '../security/api-key-seal.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { Database } from './database.ts';
import { scopes, scopeSettings } from './schema.ts';

type SettingsRow = typeof scopeSettings.$inferSelect;

/** The fields a command may change; the key goes through storeApiKey, the version is ours. */
export type SettingsPatch = Partial<
  Omit<ScopeSettings, 'scopeId' | 'version' | 'apiKeyCiphertext'>
>;

export async function ensureScope(db: Database, scopeId: string, kind: ScopeKind): Promise<void> {
  await db.insert(scopes).values({ id: scopeId, kind }).onConflictDoNothing();
}

export async function loadScopeSettings(db: Database, scopeId: string): Promise<ScopeSettings> {
  const [row] = await db.select().from(scopeSettings).where(eq(scopeSettings.scopeId, scopeId));
  return row === undefined ? defaultScopeSettings(scopeId) : fromRow(row);
}

/** Applies a patch (creating the scope and its settings row when needed) and bumps the version. */
export async function updateScopeSettings(
  db: Database,
  scope: { id: string; kind: ScopeKind },
  patch: SettingsPatch,
): Promise<ScopeSettings> {
  return upsertColumns(db, scope, toColumns(patch));
}

/**
 * Puts every setting of a scope back to its default, the API key included, in one write; the
 * version still goes up, so every process's cache replaces what it held.
 */
export async function resetScopeSettings(
  db: Database,
  scope: { id: string; kind: ScopeKind },
): Promise<ScopeSettings> {
  const {
    scopeId: _scopeId,
    version: _version,
    apiKeyCiphertext: _key,
    ...defaults
  } = defaultScopeSettings(scope.id);
  return upsertColumns(db, scope, { ...toColumns(defaults), apiKeyCiphertext: null });
}

/**
 * Applies a patch computed from `basedOn` only if nobody changed the scope since (its version
 * still matches): a list edited by two admins at once in two processes loses neither change —
 * the second gets undefined and must read again.
 */
export async function updateScopeSettingsIfUnchanged(
  db: Database,
  scope: { id: string; kind: ScopeKind },
  basedOn: ScopeSettings,
  patch: SettingsPatch,
): Promise<ScopeSettings | undefined> {
  await ensureScope(db, scope.id, scope.kind);
  const values = toColumns(patch);
  if (basedOn.version === 0) {
    // The defaults, never stored: only the first writer creates the row.
    const [created] = await db
      .insert(scopeSettings)
      .values({ scopeId: scope.id, ...values })
      .onConflictDoNothing()
      .returning();
    return created === undefined ? undefined : fromRow(created);
  }
  const [row] = await db
    .update(scopeSettings)
    .set({ ...values, version: sql`${scopeSettings.version} + 1`, updatedAt: sql`now()` })
    .where(and(eq(scopeSettings.scopeId, scope.id), eq(scopeSettings.version, basedOn.version)))
    .returning();
  return row === undefined ? undefined : fromRow(row);
}

/**
 * Seals and stores a scope's API key for the provider it belongs to (or clears it with
 * undefined). The plain key is never stored.
 */
export async function storeApiKey(
  db: Database,
  options: {
    box: SecretBox;
    scope: { id: string; kind: ScopeKind };
    key: { apiKey: string; provider: ProviderId } | undefined;
  },
): Promise<ScopeSettings> {
  const { box, scope, key } = options;
  const apiKeyCiphertext =
    key === undefined ? null : sealApiKey(box, { scopeId: scope.id, ...key });
  return upsertColumns(db, scope, { apiKeyCiphertext });
}

/**
 * The scope's plain API key for `provider` (the provider the scope resolves to), or undefined
 * when none is stored. @throws SecretError when it cannot be opened or belongs to another
 * provider.
 */
export function openApiKey(options: {
  box: SecretBox;
  settings: ScopeSettings;
  provider: ProviderId;
}): string | undefined {
  const { box, settings, provider } = options;
  return settings.apiKeyCiphertext === undefined
    ? undefined
    : openSealedApiKey(box, {
        scopeId: settings.scopeId,
        provider,
        stored: settings.apiKeyCiphertext,
      });
}

/** Creates or changes a scope's settings row and bumps its version: the one write path. */
async function upsertColumns(
  db: Database,
  scope: { id: string; kind: ScopeKind },
  values: Partial<typeof scopeSettings.$inferInsert>,
): Promise<ScopeSettings> {
  await ensureScope(db, scope.id, scope.kind);
  const [row] = await db
    .insert(scopeSettings)
    .values({ scopeId: scope.id, ...values })
    .onConflictDoUpdate({
      target: scopeSettings.scopeId,
      set: { ...values, version: sql`${scopeSettings.version} + 1`, updatedAt: sql`now()` },
    })
    .returning();
  if (row === undefined) throw new Error('settings upsert returned no row');
  return fromRow(row);
}

function fromRow(row: SettingsRow): ScopeSettings {
  return {
    scopeId: row.scopeId,
    provider: row.provider ?? undefined,
    model: row.model ?? undefined,
    apiKeyCiphertext: row.apiKeyCiphertext ?? undefined,
    personaName: row.personaName ?? undefined,
    personaInstructions: row.personaInstructions ?? undefined,
    humanizerDegree: clampDegree(row.humanizerDegree),
    temperature: row.temperature ?? undefined,
    language: row.language ?? undefined,
    timezone: row.timezone ?? undefined,
    triggerWords: row.triggerWords,
    autoReplyChannelIds: row.autoReplyChannelIds,
    autoReplyEveryN: row.autoReplyEveryN ?? undefined,
    deliveryMode: row.deliveryMode,
    queuePolicy: row.queuePolicy,
    queueDepth: row.queueDepth,
    memberTurnsPerMinute: row.memberTurnsPerMinute,
    dailyTokenBudget: row.dailyTokenBudget ?? undefined,
    dailyCostBudget: row.dailyCostBudget ?? undefined,
    memberDailyTokenBudget: row.memberDailyTokenBudget ?? undefined,
    memberDailyCostBudget: row.memberDailyCostBudget ?? undefined,
    featureFlags: row.featureFlags,
    version: row.version,
  };
}

function clampDegree(value: number): HumanizerDegree {
  return Math.min(3, Math.max(0, Math.trunc(value))) as HumanizerDegree;
}

/** Maps a patch to columns; an explicit `undefined` clears a nullable column back to the default. */
function toColumns(patch: SettingsPatch): Partial<typeof scopeSettings.$inferInsert> {
  const columns: Partial<typeof scopeSettings.$inferInsert> = {};
  const nullable = <T>(value: T | undefined): T | null => (value === undefined ? null : value);
  if ('provider' in patch) columns.provider = nullable<ProviderId>(patch.provider);
  if ('model' in patch) columns.model = nullable(patch.model);
  if ('personaName' in patch) columns.personaName = nullable(patch.personaName);
  if ('personaInstructions' in patch)
    columns.personaInstructions = nullable(patch.personaInstructions);
  if (patch.humanizerDegree !== undefined) columns.humanizerDegree = patch.humanizerDegree;
  if ('temperature' in patch) columns.temperature = nullable(patch.temperature);
  if ('language' in patch) columns.language = nullable(patch.language);
  if ('timezone' in patch) columns.timezone = nullable(patch.timezone);
  if (patch.triggerWords !== undefined) columns.triggerWords = [...patch.triggerWords];
  if (patch.autoReplyChannelIds !== undefined)
    columns.autoReplyChannelIds = [...patch.autoReplyChannelIds];
  if ('autoReplyEveryN' in patch) columns.autoReplyEveryN = nullable(patch.autoReplyEveryN);
  if (patch.deliveryMode !== undefined) columns.deliveryMode = patch.deliveryMode;
  if (patch.queuePolicy !== undefined) columns.queuePolicy = patch.queuePolicy;
  if (patch.queueDepth !== undefined) columns.queueDepth = patch.queueDepth;
  if (patch.memberTurnsPerMinute !== undefined)
    columns.memberTurnsPerMinute = patch.memberTurnsPerMinute;
  if ('dailyTokenBudget' in patch) columns.dailyTokenBudget = nullable(patch.dailyTokenBudget);
  if ('dailyCostBudget' in patch) columns.dailyCostBudget = nullable(patch.dailyCostBudget);
  if ('memberDailyTokenBudget' in patch)
    columns.memberDailyTokenBudget = nullable(patch.memberDailyTokenBudget);
  if ('memberDailyCostBudget' in patch)
    columns.memberDailyCostBudget = nullable(patch.memberDailyCostBudget);
  if (patch.featureFlags !== undefined) columns.featureFlags = { ...patch.featureFlags };
  return columns;
}
