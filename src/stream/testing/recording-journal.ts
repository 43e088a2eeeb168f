import type { TurnJournal, TurnJournalEnd, TurnJournalStart } from '../turn-journal.ts';

/** A TurnJournal that records its calls, for asserting "one start, exactly one finish". */
export class RecordingJournal implements TurnJournal {
  readonly starts: TurnJournalStart[] = [];
  readonly finishes: Array<{ turnId: string; end: TurnJournalEnd }> = [];
  failStartWith: Error | undefined;
  failFinishWith: Error | undefined;

  start(turn: TurnJournalStart): Promise<void> {
    this.starts.push(turn);
    return this.failStartWith === undefined
      ? Promise.resolve()
      : Promise.reject(this.failStartWith);
  }

  finish(turnId: string, end: TurnJournalEnd): Promise<void> {
    this.finishes.push({ turnId, end });
    return this.failFinishWith === undefined
      ? Promise.resolve()
      : Promise.reject(this.failFinishWith);
  }
}
