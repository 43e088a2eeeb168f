import type * as esbuild from 'esbuild';
import type { BuildOptions } from 'esbuild';

/** Packages loaded from node_modules at run time, not bundled. */
export const EXTERNAL_PACKAGES: string[];
/** esbuild's options for the bundle written to `outdir`. */
export function bundleOptions(outdir: string, options?: { readable?: boolean }): BuildOptions;
/** The code with every UTF-16 unit above U+007F written as a `\uXXXX` escape. */
export function asciiOnly(code: string): string;
/**
 * Builds into `options.output` (dist/ for npm): chunks first, main.js last, the build before's
 * chunks kept for running processes.
 */
export function build(
  esbuildModule: typeof esbuild,
  options: { output: string; readable: boolean },
): Promise<{ files: number; inputs: number }>;
