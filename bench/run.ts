/**
 * `npm run bench`: runs every bench/*.bench.ts (or those whose name contains the first
 * argument) and prints one table. Exits 0 even when a target is missed: benchmarks report,
 * tests decide.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchModule, BenchRow } from './bench-kit.ts';

const directory = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(directory)
  .filter((file) => file.endsWith('.bench.ts') && file.includes(filter))
  .sort();

const rows: Array<BenchRow & { file: string }> = [];
for (const file of files) {
  const module = (await import(pathToFileURL(path.join(directory, file)).href)) as BenchModule;
  for (const row of await module.rows()) rows.push({ ...row, file });
}

const header = ['benchmark', 'value', 'unit', 'target', 'ok'];
const body = rows.map((row) => [
  row.name,
  formatValue(row.value),
  row.unit,
  row.target ?? '',
  row.pass === undefined ? '' : row.pass ? 'yes' : 'NO',
]);
const widths = header.map((title, column) =>
  Math.max(title.length, ...body.map((line) => (line[column] ?? '').length)),
);
const print = (cells: string[]): void => {
  console.log(`| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`);
};
print(header);
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const line of body) print(line);
if (rows.length === 0) console.log('(no benchmarks yet)');

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(3).replace(/\.?0+$/, '');
}
