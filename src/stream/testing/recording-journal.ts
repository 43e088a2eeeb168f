import type { TurnJournal, TurnJournalEnd, TurnJournalStart } from '../turn/turn-journal.ts';

/** A TurnJournal that records its calls, for asserting "one start, exactly one finish". */
export class RecordingJournal implements TurnJournal {
  readonly starts: TurnJournalStart[] = [];
  readonly finishes: Array<{ turnId: string; end: TurnJournalEnd }> = [];
  private startFailure: Error | undefined;
  private startHold: Promise<void> | undefined;
  private finishFailure: Error | undefined;

  /** Makes `start` reject with `error`. */
  failStartWith(error: Error): void {
    this.startFailure = error;
  }

  /**
   * Makes `start` wait until the returned `release` (the write came back) or `fail` (it failed
   * for good) is called: a start still on its way while the turn streams.
   */
  holdStart(): { release(): void; fail(error: Error): void } {
    let release!: () => void;
    let fail!: (error: Error) => void;
    this.startHold = new Promise<void>((resolve, reject) => {
      release = resolve;
      fail = reject;
    });
    return { release, fail };
  }

  /** Makes `finish` reject with `error`. */
  failFinishWith(error: Error): void {
    this.finishFailure = error;
  }

  start(turn: TurnJournalStart): Promise<void> {
    this.starts.push(turn);
    if (this.startHold !== undefined) return this.startHold;
    return this.startFailure === undefined ? Promise.resolve() : Promise.reject(this.startFailure);
  }

  finish(turnId: string, end: TurnJournalEnd): Promise<void> {
    this.finishes.push({ turnId, end });
    return this.finishFailure === undefined
      ? Promise.resolve()
      : Promise.reject(this.finishFailure);
  }
}
