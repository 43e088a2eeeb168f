import { DEFAULT_TYPING_PACING, type TypingPacing } from '../../humanizer/typing-pacing.ts';
import type { HumanizerPlan } from '../../humanizer/humanizer-plan.ts';
import { MINIMUM_HOLD_CAP, type BlockPolicy } from '../blocks/block-buffer.ts';
import { DISCORD_MESSAGE_LIMIT, MINIMUM_MESSAGE_LIMIT } from '../reply/chunker.ts';

/** Tunables of one turn. Declared once here; callers pass only what they change. */
export interface StreamOptions {
  /** The platform's message limit (Discord: 2000). */
  messageLimit: number;
  /** No block grows past this; a held block is cut at its best safe point (≤ messageLimit). */
  holdCapCharacters: number;
  /** At degrees 0–2 a paragraph is also cut at a line break once this long… */
  lineCutCharacters: number;
  /** …and at a sentence end once this long. */
  sentenceCutCharacters: number;
  /** Model calls that may run tools; one more call without running tools may follow. */
  maxIterations: number;
  /** After this many failed tool calls in a row, tools are refused for the rest of the turn. */
  maxConsecutiveToolErrors: number;
  /** A model stream silent this long is aborted and the turn failed. */
  inactivityTimeoutMs: number;
  /** A tool call running this long is aborted and answered as timed out. */
  toolTimeoutMs: number;
  /** How long the end-of-turn `sink.flush` may take before the turn is recorded anyway. */
  flushTimeoutMs: number;
  /** Edit-in-place live previews at most this often (CPU economy; the sink paces the edits). */
  editPreviewIntervalMs: number;
  typingPacing: TypingPacing;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = Object.freeze({
  messageLimit: DISCORD_MESSAGE_LIMIT,
  holdCapCharacters: 1800,
  lineCutCharacters: 800,
  sentenceCutCharacters: 1200,
  maxIterations: 6,
  maxConsecutiveToolErrors: 3,
  inactivityTimeoutMs: 60_000,
  toolTimeoutMs: 120_000,
  flushTimeoutMs: 30_000,
  editPreviewIntervalMs: 250,
  typingPacing: DEFAULT_TYPING_PACING,
});

export function resolveStreamOptions(overrides: Partial<StreamOptions> = {}): StreamOptions {
  const options = { ...DEFAULT_STREAM_OPTIONS, ...overrides };
  if (!(options.messageLimit >= MINIMUM_MESSAGE_LIMIT)) {
    throw new RangeError(`messageLimit must be at least ${MINIMUM_MESSAGE_LIMIT}`);
  }
  if (!(options.maxIterations >= 1)) throw new RangeError('maxIterations must be at least 1');
  if (!(options.maxConsecutiveToolErrors >= 1)) {
    throw new RangeError('maxConsecutiveToolErrors must be at least 1');
  }
  return {
    ...options,
    holdCapCharacters: Math.min(
      options.messageLimit,
      Math.max(MINIMUM_HOLD_CAP, options.holdCapCharacters),
    ),
  };
}

/** Where the block buffer ends messages for a humanizer degree. */
export function blockPolicyFor(plan: HumanizerPlan, options: StreamOptions): BlockPolicy {
  if (plan.messageUnit === 'sentence') {
    return {
      minimumLength: { paragraph: 0, line: 0, sentence: 0 },
      holdCap: options.holdCapCharacters,
    };
  }
  return {
    minimumLength: {
      paragraph: 0,
      line: options.lineCutCharacters,
      sentence: options.sentenceCutCharacters,
    },
    holdCap: options.holdCapCharacters,
  };
}
