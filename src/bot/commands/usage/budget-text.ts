import type { Spend } from '../../../db/usage-repository.ts';
import type { Locale } from '../../i18n/locale.ts';
import { formatCount, formatMoney } from '../../i18n/money.ts';
import { commandText } from '../command-text.ts';

/** A daily limit as set: tokens, nano-dollars, either or both. */
export interface LimitPair {
  tokens: number | undefined;
  cost: number | undefined;
}

const text = commandText({
  en: {
    unlimited: 'unlimited',
    tokens: '{tokens} tokens a day',
    cost: '{cost} a day',
    both: '{cost} or {tokens} tokens a day, whichever comes first',
    spent: '{cost} · {tokens} tokens',
    'left.tokens': '{tokens} tokens left',
    'left.cost': '{cost} left',
    'left.both': '{cost} and {tokens} tokens left',
  },
  ja: {
    unlimited: '無制限',
    tokens: '1日 {tokens} トークン',
    cost: '1日 {cost}',
    both: '1日 {cost} または {tokens} トークン（先に達した方）',
    spent: '{cost}・{tokens} トークン',
    'left.tokens': '残り {tokens} トークン',
    'left.cost': '残り {cost}',
    'left.both': '残り {cost}・{tokens} トークン',
  },
});

/** "$5.00 or 1,000,000 tokens a day", or "unlimited". */
export function limitText(locale: Locale, limit: LimitPair): string {
  const tokens = positive(limit.tokens);
  const cost = positive(limit.cost);
  const params = {
    tokens: tokens === undefined ? '' : formatCount(tokens, locale),
    cost: cost === undefined ? '' : formatMoney(cost, locale),
  };
  if (tokens !== undefined && cost !== undefined) return text.get(locale, 'both', params);
  if (tokens !== undefined) return text.get(locale, 'tokens', params);
  if (cost !== undefined) return text.get(locale, 'cost', params);
  return text.get(locale, 'unlimited');
}

/** "$0.42 · 12,345 tokens". */
export function spendText(locale: Locale, spend: Spend): string {
  return text.get(locale, 'spent', {
    cost: formatMoney(spend.cost, locale),
    tokens: formatCount(spend.tokens, locale),
  });
}

/** What is left of a limit after `spent` ("unlimited" without one). */
export function leftText(locale: Locale, limit: LimitPair, spent: Spend): string {
  const tokens = positive(limit.tokens);
  const cost = positive(limit.cost);
  const params = {
    tokens: tokens === undefined ? '' : formatCount(Math.max(tokens - spent.tokens, 0), locale),
    cost: cost === undefined ? '' : formatMoney(Math.max(cost - spent.cost, 0), locale),
  };
  if (tokens !== undefined && cost !== undefined) return text.get(locale, 'left.both', params);
  if (tokens !== undefined) return text.get(locale, 'left.tokens', params);
  if (cost !== undefined) return text.get(locale, 'left.cost', params);
  return text.get(locale, 'unlimited');
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}
