/**
 * `npm run rest-proxy` itself (scripts/rest-proxy.ts): configured by its environment, it
 * proxies to DISCORD_API_URL, names a bad setting and exits 1, and stops on SIGTERM with 0.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { trackProcessGroup, untrackProcessGroup } from '../support/test-resources.ts';

const ENTRY = path.resolve(import.meta.dirname, '../../scripts/rest-proxy.ts');

function startEntry(env: Record<string, string>) {
  const child = spawn(process.execPath, [ENTRY], {
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid !== undefined) trackProcessGroup(child.pid);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      if (child.pid !== undefined) untrackProcessGroup(child.pid);
      resolve(code);
    }),
  );
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const record = JSON.parse(line) as { msg?: string; apiUrl?: string };
      if (record.msg === 'REST proxy listening') resolve(record.apiUrl ?? '');
    });
    void exited.then(() => reject(new Error(`exited: ${lines.join('\n')}`)));
  });
  return { child, exited, listening, lines };
}

let discord: FakeDiscord | undefined;
const children: ReturnType<typeof startEntry>['child'][] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await discord?.close();
  discord = undefined;
});

describe('npm run rest-proxy', () => {
  it('proxies to DISCORD_API_URL and stops on SIGTERM with exit code 0', async () => {
    discord = await startFakeDiscord();
    const entry = startEntry({ DISCORD_API_URL: discord.apiUrl, REST_PROXY_PORT: '0' });
    children.push(entry.child);
    const apiUrl = await entry.listening;
    const response = await fetch(`${apiUrl}/v10/users/@me`, {
      headers: { authorization: `Bot ${discord.token}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(discord.botUserId);
    entry.child.kill('SIGTERM');
    expect(await entry.exited).toBe(0);
    expect(entry.lines.some((line) => line.includes('REST proxy stopped'))).toBe(true);
  });

  it('names a bad setting and exits 1', async () => {
    const entry = startEntry({ REST_PROXY_PORT: 'eighty' });
    children.push(entry.child);
    entry.listening.catch(() => undefined);
    expect(await entry.exited).toBe(1);
    expect(entry.lines).toContain(
      'Configuration error: REST_PROXY_PORT must be a port number between 0 (any free port) and 65535, got eighty',
    );
  });
});
