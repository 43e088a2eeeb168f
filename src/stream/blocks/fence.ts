/** A code block left open at some point of the text (Discord: ``` … ```). */
export interface FenceState {
  /** The info-string word after the opening fence (`ts` in ```ts), or ''. */
  readonly language: string;
}

/** The line that reopens `fence` at the start of a message (with its newline). */
export function fenceOpening(fence: FenceState): string {
  return `\`\`\`${fence.language}\n`;
}

/** What closes an open fence at the end of a message (on its own line). */
export const FENCE_CLOSING = '\n```';

/** A slice of model text and the code block open (if any) at its start and at its end. */
export interface FencedText {
  text: string;
  fenceAtStart: FenceState | undefined;
  fenceAtEnd: FenceState | undefined;
}

/**
 * Makes a slice self-contained: a code block open at its start is reopened with the same
 * language, one still open at its end is closed, and the whitespace around it is trimmed (a cut
 * falls on whitespace, and Discord drops it anyway). Inside a reopened code block the text's
 * own indentation is kept; only the newline the cut left behind is absorbed by the fence line.
 */
export function renderFenced(slice: FencedText): string {
  let body = slice.text;
  if (slice.fenceAtStart !== undefined && !/^\s*```/.test(body)) {
    body = fenceOpening(slice.fenceAtStart) + body.replace(/^[ \t]*\r?\n/, '');
  } else if (slice.fenceAtStart !== undefined) {
    // The slice starts with the fence that closes the code block: the previous message
    // already closed it, so that fence is dropped instead of reopening an empty block.
    body = body.trimStart().slice(3).trimStart();
  } else {
    body = body.trimStart();
  }
  body = body.trimEnd();
  if (slice.fenceAtEnd !== undefined) body += FENCE_CLOSING;
  // A reopened block with no code left (the cut fell just before its closing fence) would
  // show as an empty code box: nothing worth sending.
  return body.length <= 40 && EMPTY_CODE_BLOCK.test(body) ? '' : body;
}

const EMPTY_CODE_BLOCK = /^```[\w+#.-]*\s*```$/;
