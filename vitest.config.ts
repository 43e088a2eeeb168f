import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import {
  BOT_PROCESS_FILES,
  DATABASE_SERVER_FILES,
  FAULT_SUITE_FILES,
} from './tests/support/test-projects.ts';

// Why each project has its ceilings: tests/support/test-projects.ts.

const BOT_PROCESS_TIMEOUT_MS = 300_000;
const FAULT_SUITE_TIMEOUT_MS = 420_000;
const DATABASE_SERVER_TIMEOUT_MS = 120_000;

const projects: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'unit',
      include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
      exclude: [
        ...configDefaults.exclude,
        ...BOT_PROCESS_FILES,
        ...FAULT_SUITE_FILES,
        ...DATABASE_SERVER_FILES,
      ],
      testTimeout: 20_000,
      // Hooks open embedded databases; on a loaded machine that is slow too.
      hookTimeout: 120_000,
    },
  },
  {
    extends: true,
    test: {
      name: 'database',
      include: DATABASE_SERVER_FILES,
      testTimeout: DATABASE_SERVER_TIMEOUT_MS,
      hookTimeout: DATABASE_SERVER_TIMEOUT_MS,
    },
  },
  {
    extends: true,
    test: {
      name: 'e2e',
      include: BOT_PROCESS_FILES,
      testTimeout: BOT_PROCESS_TIMEOUT_MS,
      hookTimeout: BOT_PROCESS_TIMEOUT_MS,
    },
  },
  {
    extends: true,
    test: {
      name: 'faults',
      include: FAULT_SUITE_FILES,
      testTimeout: FAULT_SUITE_TIMEOUT_MS,
      hookTimeout: FAULT_SUITE_TIMEOUT_MS,
      globalSetup: ['tests/faults/support/fault-table-setup.ts'],
    },
  },
];

// With a PostgreSQL server (CI sets TEST_DATABASE_URL), the bot end-to-end files run again
// with the bot on a fresh database of that server (tests/support/bot-database.ts).
if (process.env.TEST_DATABASE_URL) {
  projects.push({
    extends: true,
    test: {
      name: 'e2e-postgres',
      include: ['tests/bot/**/*.test.ts'],
      // Files that start no bot, or start it without the harness, have nothing to add here.
      exclude: [
        ...configDefaults.exclude,
        'tests/bot/e2e-smoke.test.ts',
        'tests/bot/daily-budget.test.ts',
        // Runs its processes on PostgreSQL in every project already.
        'tests/bot/cross-process.test.ts',
        'tests/bot/reminders-four-processes.test.ts',
        // Choose PostgreSQL themselves (sharding needs it): once is enough.
        'tests/bot/sharding*.test.ts',
        // Its bot runs on PGlite whatever the project: the database is not what it measures.
        'tests/bot/shared-rest-budget.test.ts',
      ],
      env: { E2E_DATABASE: 'postgres' },
      testTimeout: BOT_PROCESS_TIMEOUT_MS,
      hookTimeout: BOT_PROCESS_TIMEOUT_MS,
    },
  });
}

export default defineConfig({
  test: {
    environment: 'node',
    pool: 'forks',
    projects,
  },
});
