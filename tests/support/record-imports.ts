/**
 * Preloaded with `--import` into a process under test: appends every module URL the process
 * resolves to the file named by RECORD_IMPORTS_TO, so a test can tell what was loaded.
 */
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.RECORD_IMPORTS_TO;
if (file !== undefined) {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const result = nextResolve(specifier, context);
      appendFileSync(file, `${result.url}\n`);
      return result;
    },
  });
}
