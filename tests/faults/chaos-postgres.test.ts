/**
 * The seeded chaos run on a PostgreSQL cluster of its own: every fault kind, the database's
 * included (support/chaos/chaos-test.ts says how to size and replay it).
 */
import { describe } from 'vitest';
import { chaosTest } from './support/chaos/chaos-test.ts';

describe('chaos (PostgreSQL)', () => {
  chaosTest('postgres');
});
