/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl on a free loopback port in a temp
 * folder), so a test can stop, start and restart the server its code is connected to without
 * touching the shared one. Absent binaries → `{ skipped: 'no initdb' }`, for `describe.skipIf`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  readonly url: string;
  readonly port: number;
  /** The temp folder holding the data directory, socket and server log. */
  readonly directory: string;
  /** `pg_ctl stop -m fast`: every connection is terminated (57P01), as in a real restart. */
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** Stops the server (if running) and removes every file. Safe to call twice. */
  dispose(): Promise<void>;
}

export type PgClusterAvailability = { binDir: string } | { skipped: string };

/** Where initdb and pg_ctl live: PG_BIN_DIR, the PATH, or the newest /usr/lib/postgresql/<n>/bin. */
export function findPostgresBinaries(
  options: { environment?: NodeJS.ProcessEnv; installRoot?: string } = {},
): PgClusterAvailability {
  const environment = options.environment ?? process.env;
  const candidates = [
    environment.PG_BIN_DIR,
    ...(environment.PATH ?? '').split(path.delimiter),
    ...versionedBinDirs(options.installRoot ?? '/usr/lib/postgresql'),
  ].filter((dir): dir is string => dir !== undefined && dir !== '');
  const binDir = candidates.find(
    (dir) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl')),
  );
  return binDir === undefined ? { skipped: 'skipped: no initdb' } : { binDir };
}

function versionedBinDirs(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => /^\d+$/.test(name))
    .sort((left, right) => Number(right) - Number(left))
    .map((version) => path.join(root, version, 'bin'));
}

/** Starts a fresh cluster. Everything it created is removed if start-up fails. */
export async function startPgCluster(): Promise<PgCluster> {
  const found = findPostgresBinaries();
  if ('skipped' in found) throw new Error(found.skipped);
  const { binDir } = found;
  const owner = serverOwner();
  const root = mkdtempSync(path.join(tmpdir(), 'tomodachi-pg-'));
  if (owner !== undefined) chownSync(root, owner.uid, owner.gid);
  const dataDir = path.join(root, 'data');
  const run = (program: string, args: string[]) =>
    runAs(owner, path.join(binDir, program), args, root);
  let running = false;
  const killNow = (): void => {
    stopImmediately(dataDir);
    rmSync(root, { recursive: true, force: true });
  };
  // A worker that exits without disposing (a crash, a timeout) still leaves nothing behind.
  process.once('exit', killNow);
  try {
    await run('initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    const port = await freePort();
    const serverOptions = [
      `-p ${port}`,
      `-k ${root}`,
      `-c listen_addresses=127.0.0.1`,
      '-c fsync=off',
      '-c max_connections=50',
    ].join(' ');
    const logFile = path.join(root, 'server.log');
    const start = async (): Promise<void> => {
      await run('pg_ctl', [
        'start',
        '-w',
        '-t',
        '60',
        '-D',
        dataDir,
        '-l',
        logFile,
        '-o',
        serverOptions,
      ]);
      running = true;
    };
    const stop = async (): Promise<void> => {
      await run('pg_ctl', ['stop', '-w', '-t', '60', '-m', 'fast', '-D', dataDir]);
      running = false;
    };
    await start();
    let disposed = false;
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      port,
      directory: root,
      stop,
      start,
      async restart() {
        await stop();
        await start();
      },
      async dispose() {
        if (disposed) return;
        disposed = true;
        process.removeListener('exit', killNow);
        if (running) await stop().catch(() => stopImmediately(dataDir));
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    process.removeListener('exit', killNow);
    killNow();
    throw error;
  }
}

/** initdb refuses to run as root: when we are root, the cluster belongs to the `postgres` user. */
function serverOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error('running as root and there is no `postgres` user to own the test cluster');
  }
  return { uid: Number(uid), gid: Number(gid) };
}

function runAs(
  owner: { uid: number; gid: number } | undefined,
  program: string,
  args: string[],
  cwd: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', LANG: 'C', LC_ALL: 'C' },
      ...(owner === undefined ? {} : { uid: owner.uid, gid: owner.gid }),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else
        reject(new Error(`${path.basename(program)} ${args[0] ?? ''} exited ${code}: ${output}`));
    });
  });
}

/** Synchronous, for exit handlers: SIGQUIT is PostgreSQL's immediate shutdown. */
function stopImmediately(dataDir: string): void {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    return; // already gone
  }
  // Wait (bounded) for the server to go before its folder is removed under it.
  for (let check = 0; check < 100 && existsSync(pidFile); check += 1) {
    spawnSync('sleep', ['0.05']);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
