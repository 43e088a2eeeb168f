import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Clock } from '../../core/clock.ts';
import { ToolError, isAbortError } from '../../core/errors.ts';
import { blockedReason } from './address-policy.ts';
import { requestPinned, type PinnedAddress } from './pinned-request.ts';

/** Resolves a host name to every address it has (the default uses the system resolver). */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<PinnedAddress[]>;

export interface FetchLimits {
  maxRedirects: number;
  /** Body bytes read, after decompression. */
  maxBytes: number;
  /** The whole fetch, redirects included. */
  timeoutMs: number;
}

export interface SafeFetchOptions {
  clock: Clock;
  limits: FetchLimits;
  resolveHost?: HostResolver | undefined;
  userAgent: string;
  /**
   * TEST ONLY: lets the FIRST request go to a loopback address (a test server). Redirects are
   * still checked in full, so tests can prove a redirect to loopback is refused.
   */
  testOnlyAllowLoopbackFirstHop?: boolean | undefined;
}

export interface FetchedPage {
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GETs a public http(s) URL. Every hop (the first and each redirect, followed by hand) is
 * resolved, every resolved address is checked against the address policy, and the connection
 * is pinned to a checked address. Refusals and failures are ToolErrors the model can read.
 */
export async function safeFetch(
  rawUrl: string,
  options: SafeFetchOptions,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const deadline = new AbortController();
  const stopTimer = new AbortController();
  options.clock.sleep(options.limits.timeoutMs, stopTimer.signal).then(
    () => deadline.abort(),
    () => undefined,
  );
  const combined = AbortSignal.any([signal, deadline.signal]);
  try {
    let url = parseUrl(rawUrl);
    for (let hop = 0; ; hop += 1) {
      const pinned = await vet(url, { ...options, firstHop: hop === 0, signal: combined });
      const response = await requestPinned({
        url,
        pinned,
        headers: {
          'user-agent': options.userAgent,
          accept:
            'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1',
          'accept-encoding': 'gzip, deflate, br',
        },
        maxBytes: options.limits.maxBytes,
        signal: combined,
      });
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.status) && location !== undefined) {
        if (hop >= options.limits.maxRedirects) {
          throw new ToolError(
            'fetch_redirects',
            `Too many redirects (more than ${options.limits.maxRedirects}).`,
          );
        }
        url = parseUrl(new URL(location, url).toString());
        continue;
      }
      return {
        url: url.toString(),
        status: response.status,
        contentType: String(response.headers['content-type'] ?? ''),
        body: response.body,
        truncated: response.truncated,
      };
    }
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (deadline.signal.aborted && !signal.aborted) {
      throw new ToolError(
        'fetch_timeout',
        `The page took longer than ${options.limits.timeoutMs / 1000} s to load.`,
      );
    }
    if (signal.aborted && isAbortError(error)) throw error;
    const code = (error as { code?: unknown }).code;
    throw new ToolError(
      'fetch_failed',
      `Could not fetch the page${typeof code === 'string' ? ` (${code})` : ''}.`,
      { cause: error },
    );
  } finally {
    stopTimer.abort();
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError('fetch_url', `"${text.slice(0, 200)}" is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(
      'fetch_refused',
      `Only http and https URLs can be fetched, not ${url.protocol}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new ToolError('fetch_refused', 'URLs with a user name or password are not fetched.');
  }
  return url;
}

/** Resolves the URL's host and returns the address to connect to, or refuses. */
async function vet(
  url: URL,
  options: SafeFetchOptions & { firstHop: boolean; signal: AbortSignal },
): Promise<PinnedAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  const addresses =
    family === 0
      ? await (options.resolveHost ?? systemResolver)(host, options.signal)
      : [{ address: host, family: family as 4 | 6 }];
  const [first] = addresses;
  if (first === undefined) throw new ToolError('fetch_dns', `${host} does not resolve.`);
  // Every address must pass: a name that also points inside is refused outright.
  for (const candidate of addresses) {
    const reason = blockedReason(candidate.address);
    if (reason === undefined) continue;
    const allowedForTest =
      options.testOnlyAllowLoopbackFirstHop === true &&
      options.firstHop &&
      reason.startsWith('a loopback address');
    if (!allowedForTest) {
      throw new ToolError(
        'fetch_refused',
        `Refused: ${host === candidate.address ? host : `${host} (${candidate.address})`} is ${reason}; only public addresses can be fetched.`,
      );
    }
  }
  return first;
}

const systemResolver: HostResolver = async (hostname, signal) => {
  const resolved = lookup(hostname, { all: true, verbatim: true });
  const aborted = new Promise<never>((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const addresses = await Promise.race([resolved, aborted]);
    return addresses.map((entry) => ({
      address: entry.address,
      family: entry.family === 6 ? 6 : 4,
    }));
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ToolError('fetch_dns', `${hostname} could not be resolved.`, { cause: error });
  }
};
