/**
 * Faster module resolution inside installed packages.
 *
 * Node finds the format of every file it loads (ES module or CommonJS) by reading the nearest
 * package.json, and turns that file into JavaScript objects again for each module. drizzle-orm's
 * package.json is 179 kB and it loads a few hundred modules, so a start spent about 0.85 s of
 * CPU and a lot of garbage there: a third of a PostgreSQL start.
 *
 * This hook answers the common case itself: a relative import (`./x.js`, `../y.cjs`) between
 * files of an installed package, to a file that exists with its extension. The format comes
 * from the extension, or for `.js` from the nearest package.json's `type`, read once per
 * directory. Anything else goes on to Node's own resolution, unchanged.
 */
import { readFileSync, statSync } from 'node:fs';
import { registerHooks, type ModuleFormat, type ResolveFnOutput } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

type PackageType = 'module' | 'commonjs';

/** Maps a directory to the `type` of the nearest package.json at or above it. */
export class PackageTypes {
  readonly #byDirectory = new Map<string, PackageType>();
  readonly #readFile: (file: string) => string | undefined;

  constructor(readFile: (file: string) => string | undefined = readIfPresent) {
    this.#readFile = readFile;
  }

  of(directory: string): PackageType {
    const known = this.#byDirectory.get(directory);
    if (known !== undefined) return known;
    const type = this.#read(directory);
    this.#byDirectory.set(directory, type);
    return type;
  }

  #read(directory: string): PackageType {
    const text = this.#readFile(path.join(directory, 'package.json'));
    if (text !== undefined) return typeField(text);
    const parent = path.dirname(directory);
    // Node's own rule: no package.json up to the root means CommonJS.
    if (parent === directory) return 'commonjs';
    return this.of(parent);
  }
}

/**
 * Where Node would resolve `specifier` from `parentUrl`, with the file's format, when it is a
 * relative import between files of an installed package; undefined when Node must decide.
 */
export function packageModule(
  specifier: string,
  parentUrl: string | undefined,
  types: PackageTypes,
  isFile: (file: string) => boolean = fileExists,
): ResolveFnOutput | undefined {
  if (parentUrl === undefined || !parentUrl.startsWith('file:')) return undefined;
  if (!parentUrl.includes('/node_modules/')) return undefined;
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return undefined;
  if (/[?#%]/.test(specifier)) return undefined;
  const format = formatByExtension(path.extname(specifier));
  if (format === undefined) return undefined;
  const file = path.resolve(path.dirname(fileURLToPath(parentUrl)), specifier);
  if (!isFile(file)) return undefined;
  return {
    url: pathToFileURL(file).href,
    format: format === 'package' ? types.of(path.dirname(file)) : format,
    shortCircuit: true,
  };
}

/** Registers the hook for this process's later imports and requires. */
export function installPackageModuleResolution(): void {
  const types = new PackageTypes();
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      packageModule(specifier, context.parentURL, types) ?? nextResolve(specifier, context),
  });
}

function formatByExtension(extension: string): ModuleFormat | 'package' | undefined {
  if (extension === '.mjs') return 'module';
  if (extension === '.cjs') return 'commonjs';
  if (extension === '.js') return 'package';
  return undefined;
}

function typeField(text: string): PackageType {
  try {
    const manifest = JSON.parse(text) as { type?: unknown };
    return manifest.type === 'module' ? 'module' : 'commonjs';
  } catch {
    // Node refuses a broken package.json; treating it as CommonJS here would hide that.
    throw new Error(`unreadable package.json near a module being loaded: ${text.slice(0, 80)}`);
  }
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function fileExists(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
}
