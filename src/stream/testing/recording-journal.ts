import type { TurnJournal, TurnJournalEnd, TurnJournalStart } from '../turn/turn-journal.ts';

/** A TurnJournal that records its calls, for asserting "one start, exactly one finish". */
export class RecordingJournal implements TurnJournal {
  readonly starts: TurnJournalStart[] = [];
  readonly finishes: Array<{ turnId: string; end: TurnJournalEnd }> = [];
  private startFailure: Error | undefined;
  private finishFailure: Error | undefined;

  /** Makes `start` reject with `error`. */
  failStartWith(error: Error): void {
    this.startFailure = error;
  }

  /** Makes `finish` reject with `error`. */
  failFinishWith(error: Error): void {
    this.finishFailure = error;
  }

  start(turn: TurnJournalStart): Promise<void> {
    this.starts.push(turn);
    return this.startFailure === undefined ? Promise.resolve() : Promise.reject(this.startFailure);
  }

  finish(turnId: string, end: TurnJournalEnd): Promise<void> {
    this.finishes.push({ turnId, end });
    return this.finishFailure === undefined
      ? Promise.resolve()
      : Promise.reject(this.finishFailure);
  }
}
