import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BotError } from '../core/errors.ts';

/** Releases the lock (the operating system also does when the process dies). */
export type DataDirUnlock = () => Promise<void>;

/** How long a start waits for the holder to say who it is. */
const HOLDER_REPLY_MS = 2_000;
/** Tries to take the lock: a holder that is dying answers nothing, then lets go. */
const LOCK_ATTEMPTS = 5;
/** Between attempts while a dying holder lets go. */
const RETRY_PAUSE_MS = 200;

/**
 * The embedded database belongs to one process: two writers would corrupt it. The lock is a
 * listening unix socket the operating system frees the moment its holder dies — a SIGKILL, a
 * crash, a process not yet reaped — so a supervisor may start the bot again at once, and no
 * reused process id can hold a directory. On Linux the socket is abstract (named after the
 * directory's real path; binding is atomic, nothing is left on disk); elsewhere it is a socket
 * file in the directory, taken over when no one answers on it. A second live process is refused,
 * told the holder's process id.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirUnlock> {
  mkdirSync(dataDir, { recursive: true });
  const address = lockAddress(dataDir);
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt += 1) {
    const server = net.createServer((socket) => socket.end(`${process.pid}\n`));
    if ((await listen(server, address)) === 'listening') {
      // The lock must not keep the process alive on its own.
      server.unref();
      return () => new Promise((resolve) => server.close(() => resolve()));
    }
    const holder = await askHolder(address);
    if (holder === 'nobody' && !isAbstract(address)) {
      // A socket file whose process died: take it over.
      rmSync(address, { force: true });
    } else if (holder === 'nobody' || holder === 'silent') {
      // A holder that is dying (its threads still closing its files, or an abstract name
      // refusing connections while the kernel lets it go) frees it in a moment.
      await pause(RETRY_PAUSE_MS);
    } else {
      throw locked(dataDir, `process ${holder}`);
    }
  }
  throw locked(dataDir, 'a process that does not answer');
}

function locked(dataDir: string, holder: string): BotError {
  return new BotError(
    'database_locked',
    `the embedded database in ${dataDir} is in use by ${holder}; run one process per DATA_DIR, or set DATABASE_URL to share PostgreSQL`,
  );
}

/** The lock's socket file inside the data directory, where there are no abstract sockets. */
export const LOCK_SOCKET_FILE = '.pglite.sock';

/** The directory's lock address: abstract on Linux, a socket file in the directory elsewhere. */
export function lockAddress(dataDir: string): string {
  const real = realpathSync(dataDir);
  if (process.platform !== 'linux') return path.join(real, LOCK_SOCKET_FILE);
  const digest = createHash('sha256').update(real).digest('hex').slice(0, 40);
  return `\0tomodachi-pglite-${digest}`;
}

/** An abstract unix socket name (Linux): no file to remove, it vanishes with its holder. */
function isAbstract(address: string): boolean {
  return address.startsWith('\0');
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function listen(server: net.Server, address: string): Promise<'listening' | 'in-use'> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve('in-use');
      else reject(new BotError('database_locked', `could not lock ${address}`, { cause: error }));
    });
    server.listen(address, () => resolve('listening'));
  });
}

/**
 * The process id the holder answers with; `nobody` when no one listens (a stale socket file);
 * `silent` when the connection ends without an answer (a holder that is dying).
 */
function askHolder(address: string): Promise<string> {
  return new Promise((resolve) => {
    let reply = '';
    const socket = net.connect(address);
    socket.setTimeout(HOLDER_REPLY_MS, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString('utf8')));
    socket.on('close', () => resolve(reply.trim() || 'silent'));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const gone = error.code === 'ECONNREFUSED' || error.code === 'ENOENT';
      resolve(gone ? 'nobody' : 'silent');
    });
  });
}
