/**
 * The parent's handle on the loopback world (loopback-world.ts): forks it and turns its IPC
 * replies into promises.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorldCallName, WorldCalls, WorldReply, WorldRequest } from './loopback-protocol.ts';

const WORLD_ENTRY = fileURLToPath(new URL('./loopback-world.ts', import.meta.url));

export class LoopbackWorld {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (output: unknown) => void; reject: (error: Error) => void }
  >();
  #nextId = 1;

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (reply: WorldReply) => {
      const waiting = this.#pending.get(reply.id);
      if (waiting === undefined) return;
      this.#pending.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.output);
      else waiting.reject(new Error(`loopback world: ${reply.error}`));
    });
    child.on('exit', (code, signal) => {
      for (const waiting of this.#pending.values())
        waiting.reject(new Error(`loopback world exited (${code ?? signal})`));
      this.#pending.clear();
    });
  }

  /** Forks the world under the same Node, without the parent's flags (a --cpu-prof stays ours). */
  static start(): LoopbackWorld {
    return new LoopbackWorld(
      fork(WORLD_ENTRY, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
  }

  /** The world's process id (its CPU time is read from /proc). */
  get pid(): number {
    return this.#child.pid ?? 0;
  }

  call<Name extends WorldCallName>(
    call: Name,
    input: WorldCalls[Name]['input'],
  ): Promise<WorldCalls[Name]['output']> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, {
        resolve: (output) => resolve(output as WorldCalls[Name]['output']),
        reject,
      });
      const request: WorldRequest<Name> = { id, call, input };
      this.#child.send(request);
    });
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    await this.call('close', null).catch(() => undefined);
    this.#child.disconnect();
    await exited;
  }
}
