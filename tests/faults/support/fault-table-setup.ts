/**
 * Global setup of the `faults` project: gives every fault file the path of the shared row file
 * (`inject('faultTableFile')`) and, once all files have run, prints the table and removes it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { formatFaultTable, readFaultRows } from './fault-table.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    faultTableFile: string;
  }
}

export default function setup(project: TestProject): () => void {
  const folder = mkdtempSync(path.join(tmpdir(), 'bot-fault-table-'));
  const file = path.join(folder, 'rows.jsonl');
  project.provide('faultTableFile', file);
  return () => {
    const rows = readFaultRows(file).sort((a, b) => a.fault.localeCompare(b.fault));
    rmSync(folder, { recursive: true, force: true });
    if (rows.length === 0) return;
    process.stdout.write(`\nFault suite: one row per fault\n${formatFaultTable(rows)}\n\n`);
  };
}
