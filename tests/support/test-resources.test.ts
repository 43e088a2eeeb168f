/**
 * Process hygiene, so tests hold on a busy machine: what a test starts ends with
 * it — the whole process group, at teardown and when the test worker itself goes away — and its
 * temporary folders are removed.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { startBot } from './scenario-runner.ts';
import {
  makeTemporaryFolder,
  registeredResources,
  removeTemporaryFolder,
  signalProcessGroup,
} from './test-resources.ts';

const RESOURCES = path.resolve(import.meta.dirname, 'test-resources.ts');
const STDIO_MCP_SERVER = path.resolve(import.meta.dirname, '../mcp-servers/stdio-server.ts');

/** Whether any process of the group is alive (signal 0 only checks). */
function groupAlive(groupId: number): boolean {
  return signalProcessGroup(groupId, 0 as unknown as NodeJS.Signals);
}

/**
 * Whether the group is gone within a generous ceiling. A killed process whose parent died is
 * reaped by init a moment later and answers signal 0 until then, and no event tells this
 * process when that happens: this polls, and only the ceiling is a time.
 */
async function groupGone(groupId: number): Promise<boolean> {
  const ceiling = Date.now() + 30_000;
  while (groupAlive(groupId)) {
    if (Date.now() > ceiling) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Runs a stand-in "test worker" that registers a sleeping process group and a folder. */
function runWorker(ending: 'exit' | 'SIGTERM', scratch: string) {
  const script = `
    import { spawn } from 'node:child_process';
    import { writeFileSync } from 'node:fs';
    import { makeTemporaryFolder, trackProcessGroup } from ${JSON.stringify(RESOURCES)};
    const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
    trackProcessGroup(child.pid);
    const folder = makeTemporaryFolder('bot-hygiene-');
    writeFileSync(${JSON.stringify(path.join(scratch, 'state.json'))}, JSON.stringify({ pid: child.pid, folder }));
    ${ending === 'exit' ? 'process.exit(0);' : "setInterval(() => {}, 1000); process.stdout.write('ready\\n');"}
  `;
  return spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

function readState(scratch: string): { pid: number; folder: string } {
  return JSON.parse(readFileSync(path.join(scratch, 'state.json'), 'utf8')) as {
    pid: number;
    folder: string;
  };
}

describe('test resources', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = makeTemporaryFolder('bot-hygiene-scratch-');
  });
  afterAll(() => removeTemporaryFolder(scratch));

  it('kills the registered process groups and removes the folders when the worker exits', async () => {
    const worker = runWorker('exit', scratch);
    await new Promise((resolve) => worker.once('exit', resolve));
    const { pid, folder } = readState(scratch);
    expect(await groupGone(pid)).toBe(true);
    expect(existsSync(folder)).toBe(false);
  });

  it('does the same when the worker is ended with SIGTERM (a vitest timeout or teardown)', async () => {
    const worker = runWorker('SIGTERM', scratch);
    await new Promise((resolve) => worker.stdout.once('data', resolve));
    const { pid, folder } = readState(scratch);
    expect(groupAlive(pid)).toBe(true);
    const exited = new Promise((resolve) =>
      worker.once('exit', (_code, signal) => resolve(signal)),
    );
    worker.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    expect(await groupGone(pid)).toBe(true);
    expect(existsSync(folder)).toBe(false);
  });
});

describe('the scenario runner', () => {
  let discord: FakeDiscord;
  let folder: string;
  beforeAll(async () => {
    discord = await startFakeDiscord({ waitTimeoutMs: 60_000 });
    folder = makeTemporaryFolder('bot-hygiene-mcp-');
  });
  afterAll(async () => {
    await discord.close();
    removeTemporaryFolder(folder);
  });

  it('kills the bot with the MCP server it started, and removes its DATA_DIR', async () => {
    const config = path.join(folder, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { files: { command: process.execPath, args: [STDIO_MCP_SERVER] } },
      }),
    );
    const bot = startBot({ discord, env: { MCP_CONFIG: config, OPENAI_API_KEY: 'sk-unused' } });
    try {
      await bot.waitUntilConnected();
      await bot.waitForLog(/MCP server connected/);
      const groupId = bot.pid ?? 0;
      expect(groupAlive(groupId)).toBe(true);
      expect(registeredResources().processGroups).toContain(groupId);
      expect(await bot.kill()).toEqual({ code: null, signal: 'SIGKILL' });
      expect(await groupGone(groupId)).toBe(true);
      expect(registeredResources().processGroups).not.toContain(groupId);
    } finally {
      await bot.dispose();
    }
    expect(existsSync(bot.dataDir)).toBe(false);
    expect(registeredResources().temporaryFolders).not.toContain(bot.dataDir);
  });
});
