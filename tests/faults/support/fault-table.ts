/**
 * The fault suite's one table. Every row (a `faultRow` in any file of tests/faults) appends its
 * result as one JSON line to a file the suite's global setup made; its teardown prints the
 * table once, after every file has run (vitest runs the files in separate forks).
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

export interface FaultRowResult {
  fault: string;
  /** How many times the fault was injected (the mentions it hit). */
  runs: number;
  lostTurns: number;
  streamingRecords: number;
  /** What the member saw, in a few words. */
  memberSaw: string;
  /** From the end of the fault to the first answer after it; undefined when not measured. */
  recoveryMs: number | undefined;
  /** Why the row did not run: "known defect 12.4 …", or what this machine lacks. */
  skipped?: string;
  /** Whether every assertion of the row held. */
  passed: boolean;
}

export function appendFaultRow(file: string, row: FaultRowResult): void {
  appendFileSync(file, `${JSON.stringify(row)}\n`);
}

export function readFaultRows(file: string): FaultRowResult[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as FaultRowResult);
}

const COLUMNS = [
  'fault',
  'runs',
  'lost turns',
  'left streaming',
  'what the member saw',
  'recovery',
] as const;

/** The rows as a Markdown table (also pasted into the README's reliability section). */
export function formatFaultTable(rows: readonly FaultRowResult[]): string {
  const cells = rows.map((row) =>
    row.skipped === undefined
      ? [
          `${row.passed ? '' : '✗ '}${row.fault}`,
          String(row.runs),
          String(row.lostTurns),
          String(row.streamingRecords),
          row.memberSaw,
          row.recoveryMs === undefined ? '—' : `${(row.recoveryMs / 1000).toFixed(1)} s`,
        ]
      : [row.fault, '—', '—', '—', `skipped: ${row.skipped}`, '—'],
  );
  const widths = COLUMNS.map((title, index) =>
    Math.max(title.length, ...cells.map((line) => line[index]?.length ?? 0)),
  );
  const render = (line: readonly string[]) =>
    `| ${line.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ')} |`;
  return [
    render(COLUMNS),
    render(widths.map((width) => '-'.repeat(width))),
    ...cells.map(render),
  ].join('\n');
}
