import { DEFAULT_STOP_LEXICON, DEFAULT_STOP_PHRASES, type StopLexicon } from './stop-lexicon.ts';

/**
 * Natural-language stops (English and Japanese). A message is a stop only when it IS one: the
 * whole message, once normalised, splits into lexicon entries — lead-ins, at least one stop
 * phrase, small words after it — optionally naming the bot ("@Tomodachi stop"). One word outside
 * the lexicon ("how do I cancel my order", "wait, what about X") makes it a new message, and a
 * question mark makes it a question unless it is a request ("can you stop?", "やめてくれる？").
 *
 * There is no regular expression built from phrases: entries are compared as literals (a phrase
 * like `c++` can neither break nor widen anything) and the split is a search
 * over (position, seen a phrase, is a request) states, linear in the message length.
 */
export interface StopPhraseMatcher {
  /**
   * Whether the message is a stop on its own. `addressForms` are the ways the message may name
   * the bot ("@Tomodachi" as the message shows the mention, trigger words): they count as filler.
   */
  isStandalone(text: string, options?: { addressForms?: readonly string[] }): boolean;
  /**
   * The stop a message is, if it is one, and whom it names: `addressees` are others who may be
   * told to stop by name (the characters on stage: "Alice, stop", 「アリス、止めて」). `named`
   * holds the ids of those it names, in no order; empty for a stop that names none of them (a
   * stop for everyone). Undefined when the message is no stop.
   */
  stopOf(
    text: string,
    options?: { addressForms?: readonly string[]; addressees?: readonly StopAddressee[] },
  ): { named: string[] } | undefined;
}

/** Someone a stop may name: an id, and the names that call them. */
export interface StopAddressee {
  id: string;
  names: readonly string[];
}

/** A stop is short; anything longer is a message (and the search stays cheap). */
const MAX_STOP_LENGTH = 120;

type Kind = keyof StopLexicon | 'address';

interface Entry {
  text: string;
  kind: Kind;
  /** Set for an addressee's name: who the stop names by it. */
  addressee?: string;
}

interface State {
  position: number;
  sawPhrase: boolean;
  isRequest: boolean;
  /** The addressees named on the way here, sorted. */
  named: readonly string[];
}

export function createStopPhraseMatcher(
  phrases: readonly string[] = DEFAULT_STOP_PHRASES,
): StopPhraseMatcher {
  const lexicon =
    phrases === DEFAULT_STOP_PHRASES
      ? (defaultEntries ??= entriesOf(DEFAULT_STOP_LEXICON))
      : entriesOf({ ...DEFAULT_STOP_LEXICON, phrases });
  const stopOf: StopPhraseMatcher['stopOf'] = (text, options = {}) => {
    const normalized = normalizeForStop(text);
    if (normalized === '' || normalized.length > MAX_STOP_LENGTH) return undefined;
    const addresses: Entry[] = (options.addressForms ?? []).map((form) => ({
      text: normalizeForStop(form),
      kind: 'address',
    }));
    const addressees: Entry[] = (options.addressees ?? []).flatMap((addressee) =>
      addressee.names.map((name) => ({
        text: normalizeForStop(name),
        kind: 'address' as const,
        addressee: addressee.id,
      })),
    );
    const entries = [...lexicon, ...addresses, ...addressees].filter((entry) => entry.text !== '');
    const found = splitIntoStop(normalized, entries, isQuestion(text));
    return found === undefined ? undefined : { named: [...found.named] };
  };
  return {
    isStandalone: (text, options = {}) => stopOf(text, options) !== undefined,
    stopOf,
  };
}

let defaultEntries: Entry[] | undefined;

function entriesOf(lexicon: StopLexicon): Entry[] {
  return (Object.keys(lexicon) as Array<keyof StopLexicon>).flatMap((kind) =>
    lexicon[kind]
      .map((text) => ({ text: normalizeForStop(text), kind }))
      .filter((entry) => entry.text !== ''),
  );
}

/** What each kind of entry does to the search state; undefined where it may not stand. */
function advance(state: State, entry: Entry): Omit<State, 'position'> | undefined {
  const { sawPhrase, isRequest } = state;
  const named =
    entry.addressee === undefined || state.named.includes(entry.addressee)
      ? state.named
      : [...state.named, entry.addressee].sort();
  switch (entry.kind) {
    case 'phrases':
      return { sawPhrase: true, isRequest, named };
    case 'anywhere':
    case 'address':
      return { sawPhrase, isRequest, named };
    case 'leading':
      return sawPhrase ? undefined : { sawPhrase, isRequest, named };
    case 'requestOpeners':
      return sawPhrase ? undefined : { sawPhrase, isRequest: true, named };
    case 'trailing':
      return sawPhrase ? { sawPhrase, isRequest, named } : undefined;
    case 'requestEndings':
      return sawPhrase ? { sawPhrase, isRequest: true, named } : undefined;
  }
}

/** The first way `text` splits into a stop, with whom it names; undefined when none does. */
function splitIntoStop(
  text: string,
  entries: readonly Entry[],
  isQuestion: boolean,
): State | undefined {
  const seen = new Set<string>();
  const pending: State[] = [{ position: 0, sawPhrase: false, isRequest: false, named: [] }];
  for (let state = pending.pop(); state !== undefined; state = pending.pop()) {
    const position = text[state.position] === ' ' ? state.position + 1 : state.position;
    if (position >= text.length) {
      if (state.sawPhrase && (state.isRequest || !isQuestion)) return state;
      continue;
    }
    for (const entry of entries) {
      if (!text.startsWith(entry.text, position)) continue;
      const end = position + entry.text.length;
      if (isWordCharacter(text.at(end - 1)) && isWordCharacter(text[end])) continue;
      const next = advance(state, entry);
      if (next === undefined) continue;
      // Few names are ever on stage (a scene holds at most 8): the states stay few.
      const key = `${end}:${next.sawPhrase}:${next.isRequest}:${next.named.join(',')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      pending.push({ position: end, ...next });
    }
  }
  return undefined;
}

/** A question mark asks, unless it only loudens an exclamation ("STOP?!"). */
function isQuestion(text: string): boolean {
  return /[?？]/.test(text.replace(/[!！]+[?？]+[!！?？]*|[?？]+[!！]+[!！?？]*/g, '!'));
}

/** Latin letters and digits need a space between words; Japanese is written without one. */
function isWordCharacter(character: string | undefined): boolean {
  return character !== undefined && /[\p{Script=Latin}\p{N}_]/u.test(character);
}

/** Stands for a raw Discord token (an unresolved mention, a channel, a timestamp): never filler. */
const OPAQUE_TOKEN = ' \uE000 ';
const EMOTICON =
  /(?<=^|\s)(?:[:;=8x][-'^o]?[)(\][dpo3/\\|*]+|\^[_.-]?\^|t[_.]t|;_;|<3)(?=[\s\p{P}]|$)/gu;

/**
 * The one normalisation, for messages and lexicon entries alike, so they can never disagree:
 * NFKC (full-width letters), lowercase, emoji and emoticons dropped, apostrophes removed ("that's"
 * → "thats"), punctuation and symbols become spaces ("@" stays, for mentions), katakana becomes
 * hiragana, long-vowel marks, small vowels and っ go, and a letter repeated in a row counts once
 * ("stooop", "やめてええ"). "Okay, STOP!! 😅" → "okay stop"; "ストップ！" → "すとぷ".
 */
export function normalizeForStop(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/<a?:\w+:\d+>/g, ' ')
    .replace(/<[^<>\s]*>/g, OPAQUE_TOKEN)
    .replace(/:[\w~-]+:/g, ' ')
    .replace(
      /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\uFE0F|\u200D|\u20E3/gu,
      ' ',
    )
    .replace(EMOTICON, ' ')
    .replace(/['’‘`´]/g, '')
    .replace(/[^\P{P}@]|\p{S}/gu, ' ')
    .replace(/[\u30A1-\u30F6]/g, (katakana) => String.fromCharCode(katakana.charCodeAt(0) - 0x60))
    .replace(/[ーぁぃぅぇぉっ]/g, '')
    .replace(/(\p{L})\1+/gu, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}
