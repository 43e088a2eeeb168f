import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { closestSetting, editDistance, unknownSettingWarnings } from './unknown-settings.ts';

function folderWith(files: Record<string, string>): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'unknown-settings-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(directory, name), text);
  return directory;
}

describe('unknown settings in .env', () => {
  it('warns once for each key the bot does not know, naming the closest known one', () => {
    const directory = folderWith({
      '.env': [
        'DISCORD_TOKEN=x',
        'DEFAULT_MODLE=llama3.2',
        'OPENAI_KEY=sk-x',
        'DEFUALT_PROVIDER=openai',
        'FAVOURITE_COLOUR=blue',
        'POSTGRES_PASSWORD=compose-reads-it',
      ].join('\n'),
    });
    const warnings = unknownSettingWarnings({ directory, mcpConfigPath: undefined });
    expect([...warnings].sort()).toEqual([
      '.env sets DEFAULT_MODLE, which is not a setting the bot knows, so it is ignored — did you mean DEFAULT_MODEL?',
      '.env sets DEFUALT_PROVIDER, which is not a setting the bot knows, so it is ignored — did you mean DEFAULT_PROVIDER?',
      '.env sets FAVOURITE_COLOUR, which is not a setting the bot knows, so it is ignored',
      '.env sets OPENAI_KEY, which is not a setting the bot knows, so it is ignored — did you mean OPENAI_API_KEY?',
    ]);
    // The value is never in the warning: the key may be a misspelt secret.
    expect(warnings.join('\n')).not.toContain('sk-x');
  });

  it('knows the names an MCP server takes from ${NAME} in MCP_CONFIG', () => {
    const directory = folderWith({
      '.env': 'GITHUB_TOKEN=ghp_x\nGITHUB_TOKNE=typo',
      'mcp.json': JSON.stringify({
        mcpServers: { github: { command: 'github-mcp', env: { TOKEN: '${GITHUB_TOKEN}' } } },
      }),
    });
    const warnings = unknownSettingWarnings({
      directory,
      mcpConfigPath: path.join(directory, 'mcp.json'),
    });
    expect(warnings).toEqual([expect.stringMatching(/^\.env sets GITHUB_TOKNE,/)]);
  });

  it('says nothing without a .env', () => {
    expect(unknownSettingWarnings({ directory: folderWith({}), mcpConfigPath: undefined })).toEqual(
      [],
    );
  });

  it('suggests only a setting that is near, counting a swap of two letters as one edit', () => {
    expect(editDistance('DEFAULT_MODLE', 'DEFAULT_MODEL')).toBe(1);
    expect(closestSetting('log_level')).toBe('LOG_LEVEL');
    expect(closestSetting('SOMETHING_ELSE_ENTIRELY')).toBeUndefined();
  });
});
