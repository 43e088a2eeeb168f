/**
 * How much a stored turn matters when the context cannot hold everything (rules written for
 * chat, in English and Japanese). Pure: computed once when a turn is stored, kept in
 * `conversation_turns.importance`, read by the context selection.
 *
 * The rules are a table, evaluated in order: `at-least` raises the score to a floor, `set`
 * replaces it (small talk, which only applies when no earlier rule fired), `boost` adds.
 */
export type TurnRole = 'user' | 'assistant';

export interface ImportanceRule {
  name: string;
  /** Which speaker the rule reads; `any` for both. */
  role: TurnRole | 'any';
  effect: 'at-least' | 'set' | 'boost';
  value: number;
  matches(text: string): boolean;
  /** `set` rules only: skipped when an earlier rule already fired. */
  onlyAlone?: boolean;
}

/** A turn at or above this is "high" (the selection prefers it; an index covers it). */
export const HIGH_IMPORTANCE = 0.8;
const BASE: Record<TurnRole, number> = { user: 0.7, assistant: 0.5 };
const DECISION_MAX_LENGTH = 200;
const LONG_MESSAGE_LENGTH = 300;
const SMALL_TALK_MAX_LENGTH = 60;

const any =
  (...patterns: RegExp[]) =>
  (text: string) =>
    patterns.some((pattern) => pattern.test(text));

const CONSTRAINT = any(
  /\b(always|never|must|mustn't|must not|don't ever|do not ever|make sure|required?|requirements?|constraint|only (use|answer|reply|speak|write)|no more than|at (most|least)|deadline|allergic|vegetarian|vegan)\b/i,
  /\bmy (name|dog|cat|pet|birthday|wife|husband|partner|son|daughter|job|email|timezone|time zone)\b[^.?!]*\b(is|are|called|named)\b/i,
  /\b(i am|i'm) (allergic|vegetarian|vegan|from|based in)\b/i,
  /\b(please )?(answer|reply|respond|write|speak|talk) (only )?in (english|french|japanese|german|spanish|italian|korean|chinese)\b/i,
  /(必ず|絶対に?|常に|いつも[^。]*(して|で)|(しない|使わない|言わない)で(ください)?|禁止|してはいけない|なければならない|締め?切り|アレルギー|ベジタリアン|だけで(答え|返事|話)|で(答え|返事|話)して)/,
  /(私|僕|俺|わたし|うち)の(名前|犬|猫|ペット|誕生日|仕事|妻|夫|息子|娘)は/,
);

const DECISION = any(
  /\b(let's go with|we('ll| will) (use|go with|do)|i('ll| will) (use|go with|take)|decided|decision|agreed|confirmed|final answer|that's settled|sounds good,? let's|go ahead)\b/i,
  /(にします|に決め(た|ました)|決定|それでいこう|それで行こう|了解です|確定|で決まり|にしよう)/,
);

const PRIORITY = any(
  /\b(priority|prioriti[sz]e|urgent|asap|most important|focus on|first of all|instead|from now on|change of plans?|switch to)\b/i,
  /(優先|至急|急ぎ|最も大事|一番大事|まず(は)?|代わりに|これから(は)?|今後(は)?|予定変更|切り替え)/,
);

const QUESTION = any(/\?\s*$/m, /[？]\s*$/m, /(ですか|ますか|でしょうか|かな)[。]?\s*$/m);

const SMALL_TALK = any(
  /^\W*(hi|hello|hey|yo|sup|hiya|good (morning|night|evening|afternoon)|gm|gn|thanks?( you)?|thx|ty|ok(ay)?|k|cool|nice|lol|lmao|haha+|hehe+|wow|yay|bye|see (you|ya)|cya|np|no problem|sure|yes|yeah|yep|nope|no|great|awesome|you('re| are) welcome|how are you( doing)?|what'?s up|nothing much|same|me too|good|fine)\b[\s\W\w]{0,25}$/i,
  /^(こんにちは|こんばんは|おはよう|おやすみ|ありがとう|ありがと|どうも|よろしく|はい|うん|いいえ|ううん|了解|OK|おけ|わかった|なるほど|すごい|いいね|笑|w+|草|やあ|元気|ばいばい|またね|じゃあね)[!！。、…〜ー\s\w]{0,12}$/u,
  /^[\p{Extended_Pictographic}\s!?.]+$/u,
);

/** The rules, in order of evaluation. */
export const IMPORTANCE_RULES: readonly ImportanceRule[] = [
  {
    name: 'question-from-the-bot',
    role: 'assistant',
    effect: 'at-least',
    value: 0.85,
    matches: QUESTION,
  },
  { name: 'constraint', role: 'any', effect: 'at-least', value: 0.9, matches: CONSTRAINT },
  {
    name: 'decision',
    role: 'any',
    effect: 'at-least',
    value: 0.85,
    matches: (text) => text.length < DECISION_MAX_LENGTH && DECISION(text),
  },
  { name: 'priority-shift', role: 'any', effect: 'at-least', value: 0.85, matches: PRIORITY },
  {
    name: 'small-talk',
    role: 'any',
    effect: 'set',
    value: 0.3,
    onlyAlone: true,
    matches: (text) => text.length <= SMALL_TALK_MAX_LENGTH && SMALL_TALK(text),
  },
  {
    name: 'long-user-message',
    role: 'user',
    effect: 'boost',
    value: 0.1,
    matches: (text) => text.length > LONG_MESSAGE_LENGTH,
  },
];

/** The importance (0–1) of a turn's text, and the rules that fired (for tests and /export). */
export function scoreImportance(role: TurnRole, text: string): { score: number; rules: string[] } {
  // Mentions (`<@123>`, the way a member addresses the bot) say nothing about importance.
  const trimmed = text.replace(/<@[!&]?\d+>/g, ' ').trim();
  let score = BASE[role];
  const fired: string[] = [];
  for (const rule of IMPORTANCE_RULES) {
    if (rule.role !== 'any' && rule.role !== role) continue;
    if (rule.onlyAlone === true && fired.length > 0) continue;
    if (!rule.matches(trimmed)) continue;
    fired.push(rule.name);
    if (rule.effect === 'at-least') score = Math.max(score, rule.value);
    else if (rule.effect === 'set') score = rule.value;
    else score = Math.min(1, score + rule.value);
  }
  return { score: Math.round(score * 100) / 100, rules: fired };
}

/** The importance of a turn's text, 0–1. */
export function importanceOf(role: TurnRole, text: string): number {
  return scoreImportance(role, text).score;
}
