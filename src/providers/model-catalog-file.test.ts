import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { loadModelCatalogOverrides, parseModelCatalogOverrides } from './model-catalog-file.ts';

function problemsOf(run: () => unknown): readonly string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('MODEL_CATALOG overrides', () => {
  it('accepts per-model capabilities and default models', () => {
    const document = {
      models: {
        'qwen3:32b': { provider: 'openai', contextWindow: 40_960, reasoning: true, tools: true },
      },
      defaults: { openai: 'qwen3:32b' },
    };
    expect(parseModelCatalogOverrides(document)).toEqual(document);
  });

  it('accepts a price per million tokens and names a negative one', () => {
    const priced = {
      models: { 'gpt-5.4-mini': { price: { inputPerMillion: 0.25, outputPerMillion: 2 } } },
    };
    expect(parseModelCatalogOverrides(priced)).toEqual(priced);
    const problems = problemsOf(() =>
      parseModelCatalogOverrides({
        models: { m: { price: { inputPerMillion: -1, outputPerMillion: 2 } } },
      }),
    );
    expect(problems.join('\n')).toMatch(/models\.m\.price\.inputPerMillion/);
  });

  it('names MODEL_CATALOG and the field in every problem', () => {
    const problems = problemsOf(() =>
      parseModelCatalogOverrides({
        models: { x: { contextWindow: -1, vision: 'yes', colour: 'red' } },
        defaults: { mistral: 'm' },
      }),
    );
    expect(problems.length).toBeGreaterThanOrEqual(3);
    for (const problem of problems) expect(problem).toMatch(/^MODEL_CATALOG /);
    expect(problems.join('\n')).toMatch(/models\.x\.contextWindow/);
  });

  it('reports an unreadable file and invalid JSON as configuration problems', () => {
    const directory = temporaryFolder('catalog-');
    const broken = path.join(directory, 'catalog.json');
    writeFileSync(broken, '{ "models": ');
    expect(problemsOf(() => loadModelCatalogOverrides(broken))).toEqual([
      expect.stringMatching(/^MODEL_CATALOG is not valid JSON/),
    ]);
    expect(
      problemsOf(() => loadModelCatalogOverrides(path.join(directory, 'missing.json'))),
    ).toEqual([expect.stringMatching(/^MODEL_CATALOG cannot be read/)]);
    writeFileSync(broken, JSON.stringify({ models: { 'local-model': { contextWindow: 32_768 } } }));
    expect(loadModelCatalogOverrides(broken)).toEqual({
      models: { 'local-model': { contextWindow: 32_768 } },
    });
  });
});

/** A temporary folder removed when the current test ends, passed or failed. */
function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}
