/**
 * The chaos run's only source of randomness: mulberry32, a 32-bit generator small enough to read
 * and the same on every machine, so `CHAOS_SEED=<n>` draws the same schedule again.
 */
export interface Prng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both included). */
  integer(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** A copy of the list in a random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

export function mulberry32(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
  const integer = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    integer,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick: the list is empty');
      return items[integer(0, items.length - 1)] as T;
    },
    shuffle<T>(items: readonly T[]): T[] {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index -= 1) {
        const other = integer(0, index);
        [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
      }
      return copy;
    },
  };
}

/** A seed from CHAOS_SEED (a whole number), or a fresh one printed with the run. */
export function chaosSeed(environment: NodeJS.ProcessEnv = process.env): number {
  const text = environment.CHAOS_SEED;
  if (text === undefined || text === '') return Math.floor(Math.random() * 4_294_967_296);
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 4_294_967_296) {
    throw new Error(`CHAOS_SEED must be a whole number from 0 to 4294967295, got "${text}"`);
  }
  return seed;
}
