import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeApiKey, updateScopeSettings } from '../../src/db/scope-settings-repository.ts';
import { SecretBox } from '../../src/security/secret-box.ts';
import { startFakeDiscord, type FakeDiscord } from '../fake-discord/fake-discord.ts';
import { LlmStandIn } from '../support/llm-stand-in/llm-stand-in.ts';
import { textScript } from '../support/llm-stand-in/script.ts';
import { startBot, type BotProcess } from '../support/scenario-runner.ts';
import { createWorld, seedDatabase, TEST_API_KEY, TEST_MODEL } from './support/bot-harness.ts';

const run = promisify(execFile);
const script = (name: string) =>
  fileURLToPath(new URL(`../../scripts/${name}.ts`, import.meta.url));
const OLD_KEY = SecretBox.generateKey();
const NEW_KEY = SecretBox.generateKey();
const SCOPE_KEY = 'sk-test-this-servers-own-key-42';
const PERSONA = 'You are Mika, a cheerful astronomer who signs off with a star.';
/** Four PGlite start-ups in a row: generous on a busy 2-core machine. */
const SLOW = 300_000;

/**
 * The operator's path, end to end: back up an embedded database (npm run backup), restore it
 * into an empty DATA_DIR (npm run restore), rotate the encryption key on the restored bot, and
 * remove the old key — the bot answers from the restored state with the restored key throughout.
 */
describe('backup, restore and key rotation (real bot process)', () => {
  let discord: FakeDiscord;
  let llm: LlmStandIn;
  let world: ReturnType<typeof createWorld>;
  let root: string;
  const bots: BotProcess[] = [];

  beforeAll(async () => {
    discord = await startFakeDiscord({ rateLimitTimeScale: 0.1 });
    llm = await LlmStandIn.start();
    world = createWorld(discord);
    root = mkdtempSync(path.join(tmpdir(), 'bot-backup-e2e-'));
  });
  afterAll(async () => {
    for (const bot of bots) await bot.dispose();
    await llm?.close();
    await discord?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** The scripts as an operator runs them: the bot's environment, nothing else. */
  const operator = (name: string, args: string[], environment: Record<string, string>) =>
    run(process.execPath, [script(name), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...environment },
    });

  function start(environment: Record<string, string>): BotProcess {
    const bot = startBot({
      discord,
      dataDir: path.join(root, 'restored'),
      env: {
        OPENAI_BASE_URL: llm.openAIBaseUrl,
        OPENAI_API_KEY: TEST_API_KEY,
        DEFAULT_PROVIDER: 'openai',
        DEFAULT_MODEL: TEST_MODEL,
        ...environment,
      },
    });
    bots.push(bot);
    return bot;
  }

  async function ask(): Promise<NonNullable<LlmStandIn['requests'][number]>> {
    llm.enqueue(textScript('Pulsars spin fast ⭐'));
    const reply = discord.waits.message(
      { channelId: world.channel.id, authorId: discord.botUserId },
      { timeoutMs: 60_000 },
    );
    discord.postMessage({
      authorId: world.alice.id,
      channelId: world.channel.id,
      content: `<@${discord.botUserId}> what is a pulsar?`,
    });
    expect((await reply).content).toBe('Pulsars spin fast ⭐');
    return llm.requests.at(-1)!;
  }

  it(
    'restores a backup into an empty DATA_DIR, and the bot answers from it across a key rotation',
    async () => {
      const original = path.join(root, 'original');
      const scope = { id: world.guild.id, kind: 'guild' as const };
      await seedDatabase(original, async (db) => {
        await updateScopeSettings(db, scope, { personaInstructions: PERSONA });
        await storeApiKey(db, {
          box: new SecretBox(OLD_KEY),
          scope,
          key: { apiKey: SCOPE_KEY, provider: 'openai' },
        });
      });
      const file = path.join(root, 'bot-backup.tar.gz');
      const oldKey = OLD_KEY.toString('base64');
      const backedUp = await operator('backup', ['--out', file], {
        DATA_DIR: original,
        BOT_ENCRYPTION_KEY: oldKey,
      });
      expect(backedUp.stdout).toContain(`Wrote ${file} (pglite-archive`);
      const restoreInto = { DATA_DIR: path.join(root, 'restored'), BOT_ENCRYPTION_KEY: oldKey };
      const restored = await operator('restore', [file], restoreInto);
      expect(restored.stdout).toContain('Restored');
      // A second restore into the now non-empty directory is refused.
      await expect(operator('restore', [file], restoreInto)).rejects.toMatchObject({
        stderr: expect.stringContaining('is not empty') as string,
      });

      // Rotation: the new key, the old one as previous. Resealed in the background, logged.
      const rotating = start({
        BOT_ENCRYPTION_KEY: NEW_KEY.toString('base64'),
        BOT_ENCRYPTION_KEY_PREVIOUS: oldKey,
      });
      await rotating.waitUntilConnected({ timeoutMs: SLOW });
      const resealed = await rotating.waitForLog(/resealed under the current encryption key/, {
        timeoutMs: SLOW,
      });
      expect(resealed.json).toMatchObject({ resealed: 1, unreadable: 0 });
      const first = await ask();
      expect(first.systemText).toContain(PERSONA);
      expect(first.apiKey).toBe(SCOPE_KEY);
      expect(await rotating.stop()).toEqual({ code: 0, signal: null });

      // The old key removed: nothing is lost.
      const rotated = start({ BOT_ENCRYPTION_KEY: NEW_KEY.toString('base64') });
      await rotated.waitUntilConnected({ timeoutMs: SLOW });
      const second = await ask();
      expect(second.systemText).toContain(PERSONA);
      expect(second.apiKey).toBe(SCOPE_KEY);
      const logged = rotated
        .logs()
        .map((line) => line.text)
        .join('\n');
      expect(logged).not.toContain(SCOPE_KEY);
      expect(logged).not.toContain(oldKey);
    },
    SLOW * 2,
  );
});
