/** The module's JavaScript: types erased in place, relative `.ts` specifiers as `.js`. */
export function toJavaScript(
  source: string,
  strip: (code: string, options: { mode: 'strip' }) => string,
): string;
