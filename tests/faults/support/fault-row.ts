/**
 * One row of the fault table as one test. The row's `run` injects its fault, lifts it, and
 * returns what it measured; the row is written to the table whatever happens, then asserted:
 * 0 lost turns, 0 records left `streaming`, the channel answers the next mention. A row that
 * fails today because of a known open defect names it in `knownDefect` ("12.4 failed Discord
 * writes are silent"): it is skipped with that reason in the table — never weakened.
 */
import { expect, inject, it } from 'vitest';
import { appendFaultRow, type FaultRowResult } from './fault-table.ts';
import type { Measurement } from './fault-world.ts';

export interface RowOutcome {
  /** Further checks of the row (double replies, memory), each with what it measured. */
  checks?: Array<{ name: string; passed: boolean }>;
  /** How many mentions the fault hit. */
  runs: number;
  measurement: Measurement;
  /** What the member saw, in a few words. */
  memberSaw: string;
  /** End of the fault → the next mention answered; undefined when it was not answered. */
  recoveryMs: number | undefined;
}

export function faultRow(definition: {
  fault: string;
  knownDefect?: string;
  /** Why the row cannot run on this machine (e.g. no PostgreSQL server); undefined when it can. */
  unavailable?: string | undefined;
  run: () => Promise<RowOutcome>;
}): void {
  const file = inject('faultTableFile');
  const { fault, knownDefect, unavailable } = definition;
  if (knownDefect !== undefined || unavailable !== undefined) {
    const reason =
      knownDefect === undefined ? `${unavailable ?? ''}` : `known defect ${knownDefect}`;
    appendFaultRow(file, emptyRow({ fault, skipped: reason }));
    it.skip(`${fault} (skipped: ${reason})`, () => undefined);
    return;
  }
  it(`${fault}: 0 lost turns, 0 records left streaming, the next mention is answered`, async () => {
    let outcome: RowOutcome | undefined;
    try {
      outcome = await definition.run();
    } catch (error) {
      appendFaultRow(file, { ...emptyRow({ fault }), memberSaw: `row failed: ${String(error)}` });
      throw error;
    }
    const { measurement } = outcome;
    const checks = outcome.checks ?? [];
    const passed =
      measurement.lostTurns === 0 &&
      measurement.streamingRecords === 0 &&
      outcome.recoveryMs !== undefined &&
      checks.every((check) => check.passed);
    appendFaultRow(file, {
      fault,
      runs: outcome.runs,
      lostTurns: measurement.lostTurns,
      streamingRecords: measurement.streamingRecords,
      memberSaw: outcome.memberSaw,
      recoveryMs: outcome.recoveryMs,
      passed,
    });
    const lost = measurement.verdicts.filter((verdict) => verdict.outcome === 'lost');
    expect(lost, 'lost turns').toEqual([]);
    expect(measurement.streamingRecords, 'records left streaming').toBe(0);
    expect(outcome.recoveryMs, 'the next mention was answered').toBeDefined();
    expect(checks.filter((check) => !check.passed).map((check) => check.name)).toEqual([]);
  });
}

function emptyRow(input: { fault: string; skipped?: string }): FaultRowResult {
  return {
    fault: input.fault,
    runs: 0,
    lostTurns: 0,
    streamingRecords: 0,
    memberSaw: '',
    recoveryMs: undefined,
    passed: false,
    ...(input.skipped === undefined ? {} : { skipped: input.skipped }),
  };
}

/** A few words for what the member saw for a verdict's message. */
export function describeSeen(verdicts: Measurement['verdicts']): string {
  const parts = new Set<string>();
  for (const verdict of verdicts) {
    const message = verdict.seen;
    if (verdict.outcome === 'lost') {
      parts.add(
        message === undefined ? 'LOST: no reply, no notice' : 'LOST: a reply cut short, no notice',
      );
    } else if (message === undefined) parts.add(verdict.outcome);
    else {
      const text = message.content.replace(/\s+/g, ' ').slice(0, 48);
      parts.add(
        `${verdict.outcome}: "${text}${message.content.length > 48 ? '…' : ''}"${message.hasRetry ? ' + Retry' : ''}`,
      );
    }
  }
  return [...parts].join('; ');
}
