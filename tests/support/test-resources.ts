/**
 * What a test leaves behind if nobody ends it: process groups it started and temporary folders it
 * made. Each is registered here when created and released by its owner's teardown; whatever is
 * still registered when the test worker (a vitest fork) exits — normally, by an uncaught error,
 * or killed with SIGTERM/SIGINT/SIGHUP on a timeout — is killed (the whole group) and removed.
 * SIGKILL of the worker itself cannot be caught: its bots see their stdout close and exit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const processGroups = new Set<number>();
const temporaryFolders = new Set<string>();
const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
let installed = false;

/** A fresh folder under the system temp dir, removed at teardown or when the worker exits. */
export function makeTemporaryFolder(prefix: string): string {
  installExitSweep();
  const folder = mkdtempSync(path.join(tmpdir(), prefix));
  temporaryFolders.add(folder);
  return folder;
}

/** Removes a folder made by `makeTemporaryFolder` (or any folder) now. */
export function removeTemporaryFolder(folder: string): void {
  rmSync(folder, { recursive: true, force: true });
  temporaryFolders.delete(folder);
}

/** Registers a child spawned with `detached: true` (its pid is its process group's id). */
export function trackProcessGroup(groupId: number): void {
  installExitSweep();
  processGroups.add(groupId);
}

/** Forgets a group whose members are all gone. */
export function untrackProcessGroup(groupId: number): void {
  processGroups.delete(groupId);
}

/** Sends `signal` to every process of the group; false when the group no longer exists. */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch {
    return false; // ESRCH: every member has exited
  }
}

/** How many groups and folders are still registered (for the hygiene tests). */
export function registeredResources(): { processGroups: number[]; temporaryFolders: string[] } {
  return { processGroups: [...processGroups], temporaryFolders: [...temporaryFolders] };
}

/** Kills every registered group and removes every registered folder (synchronous). */
export function sweepResources(): void {
  for (const groupId of processGroups) signalProcessGroup(groupId, 'SIGKILL');
  processGroups.clear();
  for (const folder of temporaryFolders) rmSync(folder, { recursive: true, force: true });
  temporaryFolders.clear();
}

function installExitSweep(): void {
  if (installed) return;
  installed = true;
  process.on('exit', sweepResources);
  for (const signal of FORWARDED_SIGNALS) {
    const onSignal = (): void => {
      sweepResources();
      // Only our listener kept the default action away: die of the signal as intended.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}
