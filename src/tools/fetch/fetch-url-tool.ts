import { z } from 'zod';
import type { Clock } from '../../core/clock.ts';
import { ToolError } from '../../core/errors.ts';
import { capText } from '../tool-call-summary.ts';
import { defineTool, type ToolDefinition } from '../tool-definition.ts';
import { safeFetch, type FetchLimits, type HostResolver } from './safe-fetch.ts';

export interface FetchUrlLimits extends FetchLimits {
  /** The longest text handed to the model. */
  maxChars: number;
}

export const FETCH_URL_LIMITS: FetchUrlLimits = {
  maxRedirects: 5,
  maxBytes: 2_000_000,
  timeoutMs: 15_000,
  maxChars: 12_000,
};

const USER_AGENT = 'TomodachiBot/0.1 (Discord companion bot; fetch_url tool)';
const TEXT_TYPES = /^(text\/|application\/(json|xml|[\w.+-]+\+(json|xml))\b)/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/**
 * fetch_url: reads a public web page as text. Off by default (flag `tools.fetch_url`): a server
 * turns it on. Only public addresses are reachable (see address-policy.ts).
 */
export function createFetchUrlTool(options: {
  clock: Clock;
  limits?: Partial<FetchUrlLimits> | undefined;
  resolveHost?: HostResolver | undefined;
  /** TEST ONLY: allow a loopback first hop (a local test server); redirects stay checked. */
  testOnlyAllowLoopbackFirstHop?: boolean | undefined;
}): ToolDefinition {
  const limits = { ...FETCH_URL_LIMITS, ...options.limits };
  return defineTool({
    name: 'fetch_url',
    description:
      'Read a public web page (http or https) and get its text. Use it when someone shares a link or asks about a page.',
    input: z.strictObject({
      url: z
        .string()
        .trim()
        .min(1)
        .max(2_000)
        .describe('The full URL, starting with https:// or http://.'),
    }),
    availability: { enabledByDefault: false },
    // The fetch has its own, shorter deadline; this only bounds the text conversion after it.
    timeoutMs: limits.timeoutMs + 5_000,
    async execute(input, { signal }) {
      const page = await safeFetch(
        input.url,
        {
          clock: options.clock,
          limits,
          resolveHost: options.resolveHost,
          userAgent: USER_AGENT,
          testOnlyAllowLoopbackFirstHop: options.testOnlyAllowLoopbackFirstHop,
        },
        signal,
      );
      const mediaType = page.contentType.split(';')[0]?.trim() ?? '';
      if (mediaType !== '' && !TEXT_TYPES.test(mediaType)) {
        throw new ToolError(
          'fetch_type',
          `The page is ${mediaType}, not text, so it cannot be read.`,
        );
      }
      const raw = decode(page.body, page.contentType);
      const isHtml = HTML_TYPES.test(mediaType) || (mediaType === '' && /<html[\s>]/i.test(raw));
      // linkedom and Readability (5 MB of heap) load with the first HTML page fetched.
      const readablePage = isHtml ? (await import('./readable-page.ts')).readablePage : undefined;
      const { title, text } = readablePage
        ? readablePage(raw, { url: page.url, maxChars: limits.maxChars * 2 })
        : { title: undefined, text: raw.trim() };
      const header = [
        `URL: ${page.url}`,
        `Status: ${page.status}`,
        ...(title ? [`Title: ${title}`] : []),
      ].join('\n');
      const note = page.truncated
        ? `\n\n[Only the first ${Math.round(limits.maxBytes / 1000)} kB of the page were read.]`
        : '';
      return `${header}\n\n${capText(text === '' ? '(no text)' : text, limits.maxChars)}${note}`;
    },
  });
}

/** Decodes with the charset the server declared (or the page's meta tag), UTF-8 otherwise. */
function decode(body: Buffer, contentType: string): string {
  const declared =
    /charset=["']?([\w-]+)/i.exec(contentType)?.[1] ??
    /<meta[^>]+charset=["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
