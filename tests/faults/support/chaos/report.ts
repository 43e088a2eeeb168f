/**
 * The chaos run's printout: the seed (and how to replay it), the schedule as applied, one table,
 * and every violation spelled out — which mention, which channel, what became of it.
 */
import type { ChaosResult } from './chaos-run.ts';
import type { MentionVerdict } from './oracle.ts';
import { describeFault, FAULT_KINDS } from './schedule.ts';

/** Violations printed in full at most (the table counts them all). */
const SHOWN_VIOLATIONS = 20;

export interface ChaosCounts {
  mentions: number;
  faults: number;
  answered: number;
  told: number;
  lost: number;
  twice: number;
  contextMisses: number;
}

export function countChaos(result: ChaosResult): ChaosCounts {
  const { verdicts, contextMisses } = result.judgement;
  const count = (outcome: MentionVerdict['outcome']) =>
    verdicts.filter((verdict) => verdict.outcome === outcome).length;
  return {
    mentions: verdicts.length,
    faults: result.applied.length,
    answered: count('answered'),
    told: count('told'),
    lost: count('lost'),
    twice: verdicts.filter((verdict) => verdict.twice).length,
    contextMisses: contextMisses.length,
  };
}

export function formatChaosReport(result: ChaosResult): string {
  const { plan } = result;
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const lines = [
    `Chaos run on ${result.database === 'postgres' ? 'PostgreSQL (own cluster)' : 'PGlite'}: seed ${plan.seed} (CHAOS_SEED=${plan.seed} replays it), ${plan.mentions.length} mentions from ${plan.members} members over ${plan.channels} channels in ${seconds(plan.durationMs)}; schedule began ${new Date(result.origin).toISOString()}; wall ${seconds(result.wallMs)}`,
    'Schedule (planned → applied, how long the fault took):',
    ...result.applied.map(
      (fault) =>
        `  ${seconds(fault.atMs).padStart(8)} → ${seconds(fault.appliedAtMs).padStart(8)}  ${describeFault(fault.fault)} (${fault.tookMs} ms)${fault.note === undefined ? '' : ` — ${fault.note}`}`,
    ),
    '',
    formatTable(result),
  ];
  if (result.incidents.length > 0) {
    lines.push('', 'Harness incidents:', ...result.incidents.map((text) => `  ${text}`));
  }
  lines.push(...violations(result));
  return lines.join('\n');
}

function formatTable(result: ChaosResult): string {
  const counts = countChaos(result);
  const byKind = FAULT_KINDS.map(
    (kind) => [kind, result.applied.filter((fault) => fault.fault.kind === kind).length] as const,
  )
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
  const header = [
    'mentions',
    'faults (by kind)',
    'answered',
    'told',
    'lost',
    'twice',
    'context misses',
  ];
  const row = [
    String(counts.mentions),
    `${counts.faults}: ${byKind}`,
    String(counts.answered),
    String(counts.told),
    String(counts.lost),
    String(counts.twice),
    String(counts.contextMisses),
  ];
  const widths = header.map((title, index) => Math.max(title.length, row[index]?.length ?? 0));
  const render = (cells: readonly string[]) =>
    `| ${cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join(' | ')} |`;
  return [render(header), render(widths.map((width) => '-'.repeat(width))), render(row)].join('\n');
}

function violations(result: ChaosResult): string[] {
  const { verdicts, contextMisses } = result.judgement;
  const bad = verdicts.filter((verdict) => verdict.outcome === 'lost' || verdict.twice);
  const lines: string[] = [];
  if (bad.length > 0) lines.push('', `Mentions lost or answered twice (${bad.length}):`);
  for (const verdict of bad.slice(0, SHOWN_VIOLATIONS))
    lines.push(...describeVerdict(verdict, result));
  if (contextMisses.length > 0) lines.push('', `Context misses (${contextMisses.length}):`);
  for (const miss of contextMisses.slice(0, SHOWN_VIOLATIONS)) {
    const channel = result.mentions.find((mention) => mention.channelId === miss.channelId);
    lines.push(
      `  #${channel?.channelName ?? miss.channelId}: answer A${miss.answer.id} (to ${miss.answer.newTokens.join(' ')}) was delivered, but model call A${miss.laterCall.id} (to ${miss.laterCall.newTokens.join(' ')}) did not carry it; it carried: ${miss.laterCall.assistantTexts.slice(-3).join(' | ') || 'no assistant text'}`,
    );
  }
  return lines;
}

function describeVerdict(verdict: MentionVerdict, result: ChaosResult): string[] {
  const { mention } = verdict;
  const origin = result.origin;
  const what =
    verdict.outcome === 'lost'
      ? 'LOST'
      : `answered TWICE (${verdict.answers.map((call) => `A${call.id}`).join(', ')})`;
  const askedAgain = result.judgement.contextMisses.filter(
    (miss) => verdict.answers.includes(miss.answer) && verdict.answers.includes(miss.laterCall),
  );
  const because = askedAgain.map(
    (miss) =>
      `A${miss.laterCall.id} asked it again: answer A${miss.answer.id} was missing from its context`,
  );
  const calls = verdict.calls.map(
    (call) =>
      `A${call.id} ${call.fate}${verdict.answers.includes(call) ? ', delivered' : ', not delivered'}`,
  );
  return [
    `  mention #${mention.index} ${mention.token} (message ${mention.messageId}) by ${mention.authorName} in #${mention.channelName} at +${((mention.postedAt - origin) / 1000).toFixed(1)} s: ${what}`,
    ...because.map((text) => `    ${text}`),
    `    model calls carrying it: ${calls.join('; ') || 'none'}; notices: ${verdict.notices.map((notice) => JSON.stringify(notice.content.slice(0, 60))).join(', ') || 'none'}`,
    ...result
      .logsAbout(mention.messageId)
      .slice(-8)
      .map((line) => `    bot: ${line}`),
  ];
}
