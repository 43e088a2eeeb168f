import type { FenceState } from './fence.ts';
import type { BoundaryKind } from './markdown-scanner.ts';

export interface CutCandidate {
  position: number;
  kind: BoundaryKind;
  /** The code block open at the position (a cut there must close and reopen it). */
  fence: FenceState | undefined;
}

const KINDS: readonly BoundaryKind[] = ['paragraph', 'line', 'sentence', 'word'];
const INDEX: Readonly<Record<BoundaryKind, number>> = {
  paragraph: 0,
  line: 1,
  sentence: 2,
  word: 3,
};

/**
 * The latest place of each strength where the current block could be cut, held or not — for
 * when a block must be cut although it is held (it reached its size cap). A stronger boundary
 * is also a weaker one: a paragraph break is a fine place for a line or word cut.
 */
export class CutCandidates {
  private readonly positions = [-1, -1, -1, -1];
  private readonly fences: Array<FenceState | undefined> = [
    undefined,
    undefined,
    undefined,
    undefined,
  ];

  record(position: number, kind: BoundaryKind, fence: FenceState | undefined): void {
    for (let index = INDEX[kind]; index < KINDS.length; index += 1) {
      this.positions[index] = position;
      this.fences[index] = fence;
    }
  }

  /** The strongest candidate at or after `from`, if any. */
  best(from: number): CutCandidate | undefined {
    for (let index = 0; index < KINDS.length; index += 1) {
      const position = this.positions[index] ?? -1;
      if (position >= from) {
        return { position, kind: KINDS[index] ?? 'word', fence: this.fences[index] };
      }
    }
    return undefined;
  }

  /** Forgets candidates at or before `position` (they belong to a block already cut). */
  dropUpTo(position: number): void {
    for (let index = 0; index < KINDS.length; index += 1) {
      if ((this.positions[index] ?? -1) <= position) {
        this.positions[index] = -1;
        this.fences[index] = undefined;
      }
    }
  }
}
