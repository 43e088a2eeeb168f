import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * Runs in a fresh Node: records every package the module graph resolves while the modules a
 * bot process starts with are imported (logger, providers with OpenAI as the configured
 * provider and a provider resolved, tools without MCP servers, the bot and its stages, the database's entry before a
 * driver is chosen), and prints them.
 */
const PROBE = `
import { registerHooks } from 'node:module';
const packages = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(resolved.url);
    if (match) packages.add(match[1]);
    return resolved;
  },
});
const { createLogger } = await import('./src/app/logging/logger.ts');
createLogger({ level: 'info', secrets: [], pretty: false });
const { ProviderFactory } = await import('./src/providers/provider-factory.ts');
const factory = new ProviderFactory({
  defaults: {
    defaultProvider: 'openai',
    defaultModel: undefined,
    providerKeys: { openai: 'sk-test', anthropic: 'sk-ant', google: 'g-key' },
    providerBaseUrls: { openai: undefined, anthropic: undefined, google: undefined },
  },
});
factory.resolve({ provider: 'anthropic', model: undefined, apiKey: undefined });
await import('./src/tools/create-tools.ts');
await import('./src/bot/discord-bot.ts');
await import('./src/db/database.ts');
await import('./src/app/lifecycle/database-phase.ts');
process.stdout.write(JSON.stringify([...packages]));
`;

function packagesLoadedAtStart(): string[] {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`the probe failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as string[];
}

describe('what a bot process loads at start-up', () => {
  it('leaves every provider SDK (the configured one too), tokenizers, parsers, MCP and pino-pretty until first needed', () => {
    const loaded = packagesLoadedAtStart();
    expect(loaded).toEqual(expect.arrayContaining(['discord.js', 'pino']));
    for (const lazy of [
      // The configured provider's SDK loads with the first turn (4 MB of heap an idle bot keeps).
      'openai',
      '@anthropic-ai/sdk',
      '@google/genai',
      'gpt-tokenizer',
      'linkedom',
      '@mozilla/readability',
      '@modelcontextprotocol/sdk',
      'pino-pretty',
      '@discordjs/voice',
      '@snazzah/davey',
      'prism-media',
      // The database drivers load with the one configured; metrics only when served.
      'pg',
      '@electric-sql/pglite',
      'prom-client',
    ]) {
      expect(loaded, `${lazy} was loaded at start-up`).not.toContain(lazy);
    }
  });
});
