/**
 * How fast this machine runs the bot's kind of code: a fixed piece of work like a turn's own
 * (a chat-sized request built, serialized, parsed back, its texts joined and hashed), run in a
 * child process with the start script's Node flags, timed in CPU. The turn rows are absolute
 * milliseconds, and the machines this project is measured on differ by 2x or more (the same code
 * measured 10-12 ms of CPU per turn on one session's machine and 22-25 on another's); a turn row
 * divided by this one compares sessions, and the same code gives the same ratio.
 */
import { execFileSync } from 'node:child_process';
import { percentile } from '../bench-kit.ts';
import { startNodeFlags } from '../../tests/support/start-flags.ts';

/** Repetitions in one child: a few hundred ms of CPU, like the latency rounds' 300 turns. */
const ITERATIONS = 300;
const RUNS = 3;

const WORKLOAD = `
import { createHash } from 'node:crypto';
const work = () => {
  const messages = [];
  for (let index = 0; index < 150; index += 1) {
    messages.push({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: \`Turn \${index}: a stored line of an old conversation about plans, food and the weather, long enough to look like a real chat message.  \`,
    });
  }
  const body = JSON.stringify({ model: 'reference', messages, stream: true });
  const parsed = JSON.parse(body);
  const joined = parsed.messages.map((message) => message.content.trim()).join('\\n');
  return createHash('sha256').update(joined).digest('hex').length + body.length;
};
for (let index = 0; index < 50; index += 1) work();
const before = process.cpuUsage();
let total = 0;
for (let index = 0; index < ${ITERATIONS}; index += 1) total += work();
const spent = process.cpuUsage(before);
process.stdout.write(JSON.stringify({ cpuMs: (spent.user + spent.system) / 1000, total }));
`;

/** The reference workload's CPU time, ms: the median of RUNS child processes. */
export function referenceWorkloadCpuMs(): number {
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const output = execFileSync(
      process.execPath,
      [...startNodeFlags(), '--input-type=module', '--eval', WORKLOAD],
      { encoding: 'utf8' },
    );
    samples.push((JSON.parse(output) as { cpuMs: number }).cpuMs);
  }
  return percentile(samples, 50);
}
