import { readFileSync } from 'node:fs';
import type { ChatRequest } from '../../../core/chat.ts';
import { projectPath } from '../../../db/project-path.ts';

/** The prompt, a file in the repository so it is reviewed like code (tests check its structure). */
export const SUMMARY_PROMPT_TEMPLATE = readFileSync(
  projectPath('src/bot/context/summary/summary-prompt.md'),
  'utf8',
);
/** Words the summary may use: it is sent with every later request of the channel. */
export const SUMMARY_MAX_WORDS = 250;
const SUMMARY_MAX_OUTPUT_TOKENS = 700;

/** A stored turn as the summary sees it. */
export interface SummarizedTurn {
  role: 'user' | 'assistant';
  authorName: string | null;
  content: string;
}

/**
 * The one model call of a summary update: the prompt as system text, then the previous
 * summary and the new turns as one user message, each turn labelled with its display name
 * (the bot's as "assistant") so the summary names people only as the messages do.
 */
export function buildSummaryRequest(options: {
  model: string;
  previousSummary: string | undefined;
  turns: readonly SummarizedTurn[];
}): ChatRequest {
  const lines = options.turns.map((turn) =>
    turn.role === 'assistant'
      ? `[assistant]: ${turn.content}`
      : `[${displayName(turn.authorName)}]: ${turn.content}`,
  );
  const text = [
    '<previous-summary>',
    options.previousSummary?.trim() || '(none yet)',
    '</previous-summary>',
    '<new-messages>',
    ...lines,
    '</new-messages>',
  ].join('\n');
  return {
    model: options.model,
    system: SUMMARY_PROMPT_TEMPLATE.replace('{maxWords}', String(SUMMARY_MAX_WORDS)),
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    maxOutputTokens: SUMMARY_MAX_OUTPUT_TOKENS,
  };
}

function displayName(name: string | null): string {
  const clean = (name ?? '')
    .replace(/[\r\n[\]]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 64);
  return clean === '' ? 'a member' : clean;
}
