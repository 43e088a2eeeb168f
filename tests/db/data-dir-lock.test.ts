/**
 * The embedded database's lock on its DATA_DIR, with real processes: a live holder refuses a
 * second one (naming itself), and a holder killed with SIGKILL lets the next start in at once —
 * even before its parent reaps it, when its process id still exists (as a zombie).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { lockAddress, lockDataDir, type DataDirUnlock } from '../../src/db/data-dir-lock.ts';
import { ProcessOutput } from '../support/process-output.ts';
import { eventually } from '../tools/support/eventually.ts';

const LOCK_MODULE = pathToFileURL(path.resolve('src/db/data-dir-lock.ts')).href;
const CEILING_MS = 30_000;

/** The state letter in /proc/<pid>/stat: 'Z' for a process that died and is not yet reaped. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

describe.skipIf(process.platform !== 'linux')('the DATA_DIR lock', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * A process holding the lock on `dataDir`, started by a parent that never reaps it (a shell
   * that becomes `sleep`): once killed, its process id stays taken, as when a supervisor
   * restarts the bot before the dead one is collected. Resolves with the holder's pid.
   */
  async function holder(dataDir: string): Promise<number> {
    const script = `import { lockDataDir } from '${LOCK_MODULE}';
      await lockDataDir(process.argv[1]); console.log('locked'); setInterval(() => {}, 60_000);`;
    // sh's $0, $1, $2: the node binary, the script, the directory.
    const parent: ChildProcess = spawn(
      'sh',
      [
        '-c',
        '"$0" --input-type=module -e "$1" "$2" & echo "pid $!"; exec sleep 600',
        process.execPath,
        script,
        dataDir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = new ProcessOutput();
    output.capture(parent);
    cleanups.push(() => parent.kill('SIGKILL'));
    await eventually(() => output.text().includes('locked'), {
      timeoutMs: CEILING_MS,
      description: `the holder locked (${output.text()})`,
    });
    const pid = Number(/pid (\d+)/.exec(output.text())?.[1]);
    cleanups.push(() => {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    return pid;
  }

  function scratchDir(): string {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'bot-lock-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    return dataDir;
  }

  it('refuses a second process while the holder lives, naming the holder', async () => {
    const dataDir = scratchDir();
    const pid = await holder(dataDir);
    await expect(lockDataDir(dataDir)).rejects.toMatchObject({
      code: 'database_locked',
      message: expect.stringContaining(`in use by process ${pid}`) as unknown,
    });
  });

  it('lets a start in at once after the holder is killed, before it is even reaped', async () => {
    const dataDir = scratchDir();
    const pid = await holder(dataDir);
    process.kill(pid, 'SIGKILL');
    await eventually(() => processState(pid) === 'Z', {
      timeoutMs: CEILING_MS,
      description: 'the killed holder is a zombie',
    });
    const unlock: DataDirUnlock = await lockDataDir(dataDir);
    await unlock();
  });

  it('waits for a name that is bound but refuses connections (a holder dying), never removes it', async () => {
    // A socket bound without listening refuses connections, as an abstract name does for the
    // moment its dying holder still has it: the lock must neither take it for a stale file nor
    // crash on the name; it refuses while the name is held and takes it once it is free.
    const dataDir = scratchDir();
    const name = lockAddress(dataDir).slice(1);
    const binder: ChildProcess = spawn(
      'python3',
      [
        '-c',
        'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind("\\0"+sys.argv[1]); print("bound", flush=True); sys.stdin.read()',
        name,
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const output = new ProcessOutput();
    output.capture(binder);
    cleanups.push(() => binder.kill('SIGKILL'));
    await eventually(() => output.text().includes('bound'), {
      timeoutMs: CEILING_MS,
      description: `the name is bound (${output.text()})`,
    });
    await expect(lockDataDir(dataDir)).rejects.toMatchObject({
      code: 'database_locked',
      message: expect.stringContaining('a process that does not answer') as unknown,
    });
    binder.kill('SIGKILL');
    await eventually(() => binder.exitCode !== null || binder.signalCode !== null, {
      timeoutMs: CEILING_MS,
      description: 'the binder is gone',
    });
    const unlock: DataDirUnlock = await lockDataDir(dataDir);
    await unlock();
  });

  it('is free again once its holder unlocks', async () => {
    const dataDir = scratchDir();
    await (
      await lockDataDir(dataDir)
    )();
    await (
      await lockDataDir(dataDir)
    )();
  });
});
