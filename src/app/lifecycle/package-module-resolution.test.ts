import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageModule, PackageTypes } from './package-module-resolution.ts';

const root = '/srv/bot/node_modules/drizzle-orm';
const parentUrl = pathToFileURL(`${root}/pg-core/table.js`).href;

/** A package tree on paper: which package.json files exist and which module files. */
function tree(manifests: Record<string, object>, files: string[]) {
  const reads: string[] = [];
  const types = new PackageTypes((file) => {
    reads.push(file);
    const manifest = manifests[file];
    return manifest === undefined ? undefined : JSON.stringify(manifest);
  });
  const isFile = (file: string): boolean => files.includes(file);
  return { types, isFile, reads };
}

describe('packageModule', () => {
  it('resolves a relative import inside a package with the format of its package.json type', () => {
    const { types, isFile } = tree({ [`${root}/package.json`]: { type: 'module' } }, [
      `${root}/pg-core/columns/text.js`,
      `${root}/entity.cjs`,
    ]);
    expect(packageModule('./columns/text.js', parentUrl, types, isFile)).toEqual({
      url: pathToFileURL(`${root}/pg-core/columns/text.js`).href,
      format: 'module',
      shortCircuit: true,
    });
    expect(packageModule('../entity.cjs', parentUrl, types, isFile)?.format).toBe('commonjs');
  });

  it('reads each directory’s package.json once and lets a nested one decide below it', () => {
    const { types, isFile, reads } = tree(
      {
        [`${root}/package.json`]: { type: 'module' },
        [`${root}/legacy/package.json`]: { name: 'legacy' },
      },
      [`${root}/pg-core/a.js`, `${root}/pg-core/b.js`, `${root}/legacy/c.js`],
    );
    expect(packageModule('./a.js', parentUrl, types, isFile)?.format).toBe('module');
    expect(packageModule('./b.js', parentUrl, types, isFile)?.format).toBe('module');
    expect(packageModule('../legacy/c.js', parentUrl, types, isFile)?.format).toBe('commonjs');
    expect(reads.filter((file) => file === `${root}/package.json`)).toHaveLength(1);
  });

  it('leaves to Node what it does not know for sure', () => {
    const { types, isFile } = tree({ [`${root}/package.json`]: { type: 'module' } }, [
      `${root}/pg-core/here.js`,
    ]);
    const ownCode = pathToFileURL('/srv/bot/src/main.ts').href;
    expect(packageModule('./here.js', ownCode, types, isFile)).toBeUndefined();
    expect(packageModule('drizzle-orm/pg-core', parentUrl, types, isFile)).toBeUndefined();
    expect(packageModule('./missing.js', parentUrl, types, isFile)).toBeUndefined();
    expect(packageModule('./here', parentUrl, types, isFile)).toBeUndefined();
    expect(packageModule('./here.js?v=1', parentUrl, types, isFile)).toBeUndefined();
    expect(packageModule('./here.js', undefined, types, isFile)).toBeUndefined();
    expect(packageModule('./here.json', parentUrl, types, isFile)).toBeUndefined();
  });

  it('agrees with Node on the installed packages the bot loads', () => {
    const require = createRequire(import.meta.url);
    const types = new PackageTypes();
    for (const [entry, relative] of [
      ['drizzle-orm/pg-core', './table.js'],
      ['drizzle-orm/pg-core', './table.cjs'],
      ['discord.js', './util/Events.js'],
    ] as const) {
      const entryFile = require.resolve(entry);
      const resolved = packageModule(relative, pathToFileURL(entryFile).href, types);
      expect(resolved?.url).toBe(
        pathToFileURL(path.resolve(path.dirname(entryFile), relative)).href,
      );
      expect(resolved?.format).toBe(relative.endsWith('.cjs') ? 'commonjs' : expectedType(entry));
    }
  });
});

function expectedType(entry: string): string {
  // drizzle-orm ships ES modules as .js ("type": "module"); discord.js is CommonJS.
  return entry.startsWith('drizzle-orm') ? 'module' : 'commonjs';
}
