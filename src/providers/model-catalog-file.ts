import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { PROVIDER_IDS } from '../core/provider.ts';
import type { ModelCatalogOverrides } from './model-catalog.ts';

const positiveInteger = z.number().int().positive();

const dollars = z.number().min(0).max(1_000_000);

const priceSchema = z
  .object({
    inputPerMillion: dollars,
    cachedInputPerMillion: dollars.optional(),
    outputPerMillion: dollars,
    perMinute: dollars.optional(),
    perMillionCharacters: dollars.optional(),
  })
  .strict();

const capabilitiesSchema = z
  .object({
    provider: z.enum(PROVIDER_IDS).optional(),
    contextWindow: positiveInteger.optional(),
    maxOutputTokens: positiveInteger.optional(),
    vision: z.boolean().optional(),
    tools: z.boolean().optional(),
    reasoning: z.boolean().optional(),
    temperature: z.boolean().optional(),
    tokenizer: z.enum(['o200k', 'cl100k', 'estimate']).optional(),
    estimateRatio: z.number().min(0.5).max(4).optional(),
    firstByteTimeoutMs: z.number().int().min(1_000).max(600_000).optional(),
    price: priceSchema.optional(),
  })
  .strict();

const overridesSchema = z
  .object({
    models: z.record(z.string().min(1), capabilitiesSchema).optional(),
    defaults: z.partialRecord(z.enum(PROVIDER_IDS), z.string().min(1)).optional(),
  })
  .strict();

/**
 * Validates a MODEL_CATALOG document, e.g.
 * `{"models": {"llama3.1": {"contextWindow": 131072, "tools": true}}, "defaults": {"openai": "llama3.1:8b"}}`;
 * a price in dollars per million tokens: `{"models": {"gpt-5.4-mini": {"price":
 * {"inputPerMillion": 0.25, "cachedInputPerMillion": 0.025, "outputPerMillion": 2}}}}`.
 * Throws ConfigError naming MODEL_CATALOG and every bad field.
 */
export function parseModelCatalogOverrides(document: unknown): ModelCatalogOverrides {
  const result = overridesSchema.safeParse(document);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map(
      (issue) => `MODEL_CATALOG ${issue.path.join('.') || '(document)'}: ${issue.message}`,
    ),
  );
}

/** Reads and validates the MODEL_CATALOG file; read once at start-up. */
export function loadModelCatalogOverrides(path: string): ModelCatalogOverrides {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError([`MODEL_CATALOG cannot be read (${path}): ${(error as Error).message}`]);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ConfigError([
      `MODEL_CATALOG is not valid JSON (${path}): ${(error as Error).message}`,
    ]);
  }
  return parseModelCatalogOverrides(document);
}
