/**
 * Summarizes a .cpuprofile: self time by package (or src/ folder) and the heaviest functions,
 * as shares of the samples. `node bench/support/cpu-profile-summary.ts <file> [top]`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArgument] = process.argv.slice(2);
if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [top]');
const top = Number(topArgument ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const total = [...selfUs.values()].reduce((sum, value) => sum + value, 0);

const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, micros] of selfUs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame) continue;
  const area = areaOf(frame.url, frame.functionName);
  byArea.set(area, (byArea.get(area) ?? 0) + micros);
  const name = `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
}
const print = (title: string, entries: Map<string, number>): void => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(6)} ms  ${name}`,
    );
};
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms`);
print('self time by area', byArea);
print('self time by function', byFunction);

function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1]) return modules[1];
  const source = /\/(src|bench|tests)\/(.*)\/[^/]+$/.exec(url);
  if (source) return `${source[1]}/${source[2]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

function shortUrl(url: string): string {
  return url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench|tests)\//, '$1/');
}
