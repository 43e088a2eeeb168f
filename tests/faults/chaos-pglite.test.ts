/**
 * The seeded chaos run on the embedded PGlite: every fault kind but the database's (one process
 * owns the data directory, so there is no connection to cut or server to restart).
 */
import { describe } from 'vitest';
import { chaosTest } from './support/chaos/chaos-test.ts';

describe('chaos (PGlite)', () => {
  chaosTest('pglite');
});
