/**
 * Which vitest project runs which test files (vitest.config.ts), so that each file gets the
 * ceiling its waits need. The globs are repository-relative; `tests/lint/test-projects.test.ts`
 * checks that every file opening a test database on the shared server is in one of them.
 */

/**
 * Files that start the real bot process (`node dist/main.js`, as `npm start` does). On a busy 2-core machine a start
 * alone can take tens of seconds, so their tests get minutes, not the unit tests' 20 s; their
 * waits are for events, with ceilings (tests/support/scenario-runner.ts), so a healthy run is
 * never slower for it.
 */
export const BOT_PROCESS_FILES = [
  'tests/bot/**/*.test.ts',
  'tests/context/**/*.test.ts',
  'tests/startup.test.ts',
  'tests/support/scenario-runner.test.ts',
  'tests/support/test-resources.test.ts',
];

export const FAULT_SUITE_FILES = ['tests/faults/**/*.test.ts'];

/**
 * Files whose tests run their statements on the shared PostgreSQL server too (TEST_DATABASE_URL).
 * While the fault suite starts, cuts and restarts its own clusters beside it, that server has
 * held one statement for tens of seconds (a database took 35 s to create; a LISTEN/NOTIFY
 * stop test passed 12 ms alone and ran out of a 20 s ceiling in CI), so a test gets two
 * minutes. Their waits are for events, so a healthy run is never slower for it.
 */
export const DATABASE_SERVER_FILES = [
  'tests/db/**/*.test.ts',
  'tests/sharding/**/*.test.ts',
  'tests/tools/create-tools.test.ts',
  'tests/tools/memory-tools.test.ts',
  'tests/tools/reminders.test.ts',
  'tests/tools/time-zone-settings.test.ts',
  'tests/tools/tool-call-recording.test.ts',
  'tests/tools/tool-loop-through-providers.test.ts',
];
