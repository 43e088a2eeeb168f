import type { BuildOptions } from 'esbuild';

/** Packages loaded from node_modules at run time, not bundled. */
export const EXTERNAL_PACKAGES: string[];
/** esbuild's options for the bundle written to `outdir`. */
export function bundleOptions(outdir: string, options?: { readable?: boolean }): BuildOptions;
/** The code with every UTF-16 unit above U+007F written as a `\uXXXX` escape. */
export function asciiOnly(code: string): string;
