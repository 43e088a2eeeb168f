import type { ProviderId } from '../core/provider.ts';
import {
  BUILT_IN_ENTRIES,
  DEFAULT_MODELS,
  FALLBACK_CAPABILITIES,
  type CatalogEntry,
  type ModelCapabilities,
} from './model-catalog-entries.ts';

/** A model as the catalogue describes it. */
export interface ModelInfo extends ModelCapabilities {
  /** The model id that was looked up. */
  id: string;
  provider: ProviderId;
  /** False when nothing matched and the conservative fallback applies. */
  known: boolean;
}

/**
 * Operator overrides (MODEL_CATALOG): per model id or prefix, and default models. A field left
 * undefined is not overridden.
 */
export interface ModelCatalogOverrides {
  models?: Record<string, MaybeFields<ModelCapabilities & { provider: ProviderId }>> | undefined;
  defaults?: MaybeFields<Record<ProviderId, string>> | undefined;
}

type MaybeFields<T> = { [K in keyof T]?: T[K] | undefined };

const BOUNDARY = /[-.:@/]/;

/**
 * Context window, output limit and capabilities per model. Lookups match a model id or its
 * family prefix (the longest one wins), so dated ids such as `gpt-4o-2024-11-20` resolve to
 * their family. Operator overrides are merged over the built-in entries.
 */
export class ModelCatalog {
  readonly #entries: readonly CatalogEntry[];
  readonly #defaults: Readonly<Record<ProviderId, string>>;
  readonly #cache = new Map<string, ModelInfo>();

  constructor(overrides: ModelCatalogOverrides = {}) {
    this.#entries = mergeOverrides(BUILT_IN_ENTRIES, overrides.models ?? {});
    this.#defaults = { ...DEFAULT_MODELS, ...definedValues(overrides.defaults ?? {}) };
  }

  defaultModel(provider: ProviderId): string {
    return this.#defaults[provider];
  }

  /** The ids the catalogue names for a provider, its default first: suggestions for a picker. */
  modelIds(provider: ProviderId): string[] {
    const named = this.#entries.filter((entry) => entry.provider === provider);
    return [...new Set([this.defaultModel(provider), ...named.map((entry) => entry.match)])];
  }

  lookup(provider: ProviderId, model: string): ModelInfo {
    const key = `${provider}\u0000${model}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const info = this.#resolve(provider, model);
    this.#cache.set(key, info);
    return info;
  }

  #resolve(provider: ProviderId, model: string): ModelInfo {
    // Routers such as OpenRouter name models `vendor/model`; the model part is what we know.
    const candidates = [model, model.slice(model.lastIndexOf('/') + 1)];
    for (const candidate of candidates) {
      const entry =
        longestMatch(
          this.#entries.filter((item) => item.provider === provider),
          candidate,
        ) ?? longestMatch(this.#entries, candidate);
      if (entry) {
        const { match: _match, provider: _provider, ...capabilities } = entry;
        return { ...capabilities, id: model, provider, known: true };
      }
    }
    return { ...FALLBACK_CAPABILITIES, id: model, provider, known: false };
  }
}

function longestMatch(entries: readonly CatalogEntry[], model: string): CatalogEntry | undefined {
  const lowered = model.toLowerCase();
  let best: CatalogEntry | undefined;
  for (const entry of entries) {
    const prefix = entry.match.toLowerCase();
    if (!lowered.startsWith(prefix)) continue;
    const next = lowered.charAt(prefix.length);
    if (next !== '' && !BOUNDARY.test(next)) continue;
    if (best === undefined || entry.match.length > best.match.length) best = entry;
  }
  return best;
}

function mergeOverrides(
  entries: readonly CatalogEntry[],
  overrides: NonNullable<ModelCatalogOverrides['models']>,
): CatalogEntry[] {
  const merged = [...entries];
  for (const [match, override] of Object.entries(overrides)) {
    const fields = definedValues(override);
    const existing = merged.findIndex(
      (entry) =>
        entry.match === match &&
        (fields.provider === undefined || entry.provider === fields.provider),
    );
    const current = merged[existing];
    if (current) {
      merged[existing] = { ...current, ...fields };
    } else {
      // A model the built-ins do not know: the override completes the conservative fallback.
      merged.push({ ...FALLBACK_CAPABILITIES, provider: 'openai', ...fields, match });
    }
  }
  return merged;
}

type DefinedFields<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

function definedValues<T extends object>(value: T): DefinedFields<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, item]) => item !== undefined),
  ) as DefinedFields<T>;
}
