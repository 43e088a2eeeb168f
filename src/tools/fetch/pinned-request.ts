import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** An address that passed the policy; the connection goes to it and nowhere else. */
export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

export interface PinnedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The (decompressed) body, at most `maxBytes`; empty for a redirect. */
  body: Buffer;
  truncated: boolean;
}

/**
 * One GET to `url`, connected to the pinned address whatever DNS says now (no rebinding: the
 * address checked is the address used). The URL's host still names the request (Host header,
 * TLS server name and certificate check). A redirect is returned unread for the caller to vet.
 */
export function requestPinned(options: {
  url: URL;
  pinned: PinnedAddress;
  headers: Record<string, string>;
  maxBytes: number;
  signal: AbortSignal;
}): Promise<PinnedResponse> {
  const transport = options.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(options.url, {
      method: 'GET',
      headers: options.headers,
      signal: options.signal,
      agent: false,
      lookup: pinnedLookup(options.pinned),
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location !== undefined) {
        response.destroy();
        resolve({ status, headers: response.headers, body: Buffer.alloc(0), truncated: false });
        return;
      }
      readCapped(decoded(response), options.maxBytes).then(
        ({ body, truncated }) => {
          response.destroy();
          resolve({ status, headers: response.headers, body, truncated });
        },
        (error: unknown) => {
          response.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
    request.end();
  });
}

function pinnedLookup(pinned: PinnedAddress): LookupFunction {
  return (_hostname, lookupOptions, callback) => {
    // Node asks for every address (`all`) when it races IPv4/IPv6; we only ever offer one.
    if (lookupOptions.all === true) {
      const addresses: LookupAddress[] = [{ address: pinned.address, family: pinned.family }];
      (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      return;
    }
    callback(null, pinned.address, pinned.family);
  };
}

function decoded(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress());
  return response;
}

/** Reads until `maxBytes` (counted after decompression, so a zip bomb stops early too). */
async function readCapped(
  stream: Readable,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      stream.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
