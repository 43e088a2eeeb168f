/**
 * A test file that opens a database on the shared PostgreSQL server must run in a project whose
 * ceiling outlasts that server's stalls (tests/support/test-projects.ts): listed by name, a new
 * file would otherwise land in the unit project's 20 s.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BOT_PROCESS_FILES,
  DATABASE_SERVER_FILES,
  FAULT_SUITE_FILES,
} from '../support/test-projects.ts';

const ROOT = process.cwd();
/** What a test file imports or reads when it opens databases on the shared server. */
const OPENS_SERVER_DATABASES = /support\/test-database\.ts|TEST_DATABASE_URL/;

function testFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(relative);
    return entry.name.endsWith('.test.ts') ? [relative] : [];
  });
}

const inAny = (file: string, globs: readonly string[]) =>
  globs.some((glob) => path.matchesGlob(file, glob));

describe('test projects', () => {
  it('runs every file that opens shared-server databases with a ceiling above 20 s', () => {
    const opening = [...testFiles('src'), ...testFiles('tests')].filter((file) =>
      OPENS_SERVER_DATABASES.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(opening.length).toBeGreaterThan(30);
    const inUnitProject = opening.filter(
      (file) =>
        file !== 'tests/lint/test-projects.test.ts' &&
        !inAny(file, [...BOT_PROCESS_FILES, ...FAULT_SUITE_FILES, ...DATABASE_SERVER_FILES]),
    );
    expect(inUnitProject).toEqual([]);
  });

  it('names only files that exist', () => {
    const named = DATABASE_SERVER_FILES.filter((glob) => !glob.includes('*'));
    expect(named.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
  });
});
