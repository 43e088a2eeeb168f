import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, type LogFunction, type Logger } from '../../core/logger.ts';
import { labelled } from './conversation-entries.ts';
import type { InboundAttachment } from '../client/inbound-message.ts';
import {
  ATTACHMENT_LIMITS,
  attachmentParts,
  fetchDownload,
  type Download,
} from './trigger-attachments.ts';

let nextId = 1;
function attachment(
  name: string,
  contentType: string | undefined,
  size = 1_000,
): InboundAttachment {
  const id = String(nextId++);
  return { id, name, url: `https://cdn.test/${id}/${name}`, contentType, size };
}

/** Serves attachment bodies by URL and records every download asked for. */
function downloads(bodies: Record<string, Uint8Array | string | Error> = {}) {
  const requested: Array<{ url: string; maxBytes: number }> = [];
  const download: Download = (url, options) => {
    requested.push({ url, maxBytes: options.maxBytes });
    const body = bodies[url] ?? 'file body';
    if (body instanceof Error) return Promise.reject(body);
    return Promise.resolve(typeof body === 'string' ? new TextEncoder().encode(body) : body);
  };
  return { download, requested };
}

function debugLog() {
  const entries: unknown[][] = [];
  const debug: LogFunction = (...args: unknown[]) => {
    entries.push(args);
  };
  const logger: Logger = { ...silentLogger, debug, child: () => logger };
  return { logger, entries };
}

async function partsOf(
  attachments: InboundAttachment[],
  options: { vision: boolean; download: Download; logger?: Logger },
) {
  return attachmentParts({
    attachments,
    vision: options.vision,
    download: options.download,
    logger: options.logger ?? silentLogger,
    signal: new AbortController().signal,
  });
}

const PNG_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

describe('attachmentParts: images', () => {
  it('sends an image to a vision model inline, as base64 with its media type', async () => {
    const photo = attachment('cat.png', 'IMAGE/PNG; name=cat');
    const { download, requested } = downloads({ [photo.url]: PNG_BYTES });
    expect(await partsOf([photo], { vision: true, download })).toEqual([
      { type: 'image', mediaType: 'image/png', data: Buffer.from(PNG_BYTES).toString('base64') },
    ]);
    expect(requested).toEqual([{ url: photo.url, maxBytes: ATTACHMENT_LIMITS.imageBytes }]);
  });

  it('neither downloads nor sends images when the model has no vision', async () => {
    const { download, requested } = downloads();
    const images = [attachment('a.png', 'image/png'), attachment('b.jpg', 'image/jpeg')];
    expect(await partsOf(images, { vision: false, download })).toEqual([]);
    expect(requested).toEqual([]);
  });

  it(`sends at most ${ATTACHMENT_LIMITS.imagesPerTurn} images and skips larger or unsupported ones unread`, async () => {
    const { download, requested } = downloads();
    const tooLarge = attachment('huge.webp', 'image/webp', ATTACHMENT_LIMITS.imageBytes + 1);
    const unsupported = attachment('drawing.svg', 'image/svg+xml');
    const fitting = ['1.png', '2.jpg', '3.gif', '4.webp', '5.png'].map((name) =>
      attachment(name, `image/${name.endsWith('jpg') ? 'jpeg' : name.split('.')[1]}`),
    );
    const parts = await partsOf([tooLarge, unsupported, ...fitting], { vision: true, download });
    expect(parts.map((part) => part.type === 'image' && part.mediaType)).toEqual([
      'image/png',
      'image/jpeg',
      'image/gif',
      'image/webp',
    ]);
    expect(requested.map((request) => request.url)).toEqual(
      fitting.slice(0, ATTACHMENT_LIMITS.imagesPerTurn).map((image) => image.url),
    );
  });
});

describe('attachmentParts: text files', () => {
  it('inlines small text files under a header naming the file, by type or by extension', async () => {
    const notes = attachment('notes.txt', 'text/plain; charset=utf-8');
    const data = attachment('data.json', 'application/json');
    const script = attachment('main.py', undefined);
    const { download, requested } = downloads({
      [notes.url]: 'buy milk',
      [data.url]: '{"a":1}',
      [script.url]: 'print("hi")',
    });
    expect(await partsOf([notes, data, script], { vision: false, download })).toEqual([
      { type: 'text', text: '[content of notes.txt]\nbuy milk' },
      { type: 'text', text: '[content of data.json]\n{"a":1}' },
      { type: 'text', text: '[content of main.py]\nprint("hi")' },
    ]);
    expect(requested.every((request) => request.maxBytes === ATTACHMENT_LIMITS.textBytes)).toBe(
      true,
    );
  });

  it(`cuts text after ${ATTACHMENT_LIMITS.textCharacters} characters and says so`, async () => {
    const log = attachment('server.log', 'text/plain');
    const long = 'x'.repeat(ATTACHMENT_LIMITS.textCharacters) + 'TAIL';
    const { download } = downloads({ [log.url]: long });
    const [part] = await partsOf([log], { vision: false, download });
    expect(part).toEqual({
      type: 'text',
      text: `[content of server.log]\n${'x'.repeat(ATTACHMENT_LIMITS.textCharacters)}\n[…truncated]`,
    });
  });

  it('does not download a text file declared larger than the cap', async () => {
    const { download, requested } = downloads();
    const big = attachment('dump.csv', 'text/csv', ATTACHMENT_LIMITS.textBytes + 1);
    expect(await partsOf([big], { vision: true, download })).toEqual([]);
    expect(requested).toEqual([]);
  });

  it('decodes invalid UTF-8 with replacement characters instead of failing', async () => {
    const broken = attachment('broken.txt', 'text/plain');
    const { download } = downloads({ [broken.url]: Uint8Array.from([0x68, 0x69, 0xff]) });
    expect(await partsOf([broken], { vision: false, download })).toEqual([
      { type: 'text', text: '[content of broken.txt]\nhi\uFFFD' },
    ]);
  });
});

describe('attachmentParts: everything else', () => {
  it('leaves other files to the note in the message label, without downloading them', async () => {
    const { download, requested } = downloads();
    const files = [
      attachment('report.pdf', 'application/pdf'),
      attachment('archive.zip', undefined),
    ];
    expect(await partsOf(files, { vision: true, download })).toEqual([]);
    expect(requested).toEqual([]);
    const label = labelled({
      authorName: 'ann',
      authorId: '210000000000000001',
      authorIsBot: false,
      content: 'see attached',
      attachments: files,
    });
    expect(label).toContain('[attachment: report.pdf, application/pdf]');
    expect(label).toContain('[attachment: archive.zip]');
  });

  it('skips an attachment whose download fails, logs it at debug and keeps the others', async () => {
    const lost = attachment('lost.txt', 'text/plain');
    const kept = attachment('kept.txt', 'text/plain');
    const { download } = downloads({ [lost.url]: new Error('404'), [kept.url]: 'still here' });
    const { logger, entries } = debugLog();
    expect(await partsOf([lost, kept], { vision: false, download, logger })).toEqual([
      { type: 'text', text: '[content of kept.txt]\nstill here' },
    ]);
    expect(entries).toEqual([
      [{ err: new Error('404'), attachment: 'lost.txt' }, 'attachment skipped'],
    ]);
  });
});

describe('fetchDownload', () => {
  let server: http.Server;
  let baseUrl: string;
  let silentRequestArrived: () => void = () => undefined;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/small') response.writeHead(200).end('hello');
      else if (request.url === '/large') {
        response.writeHead(200);
        response.write('a'.repeat(600));
        response.end('b'.repeat(600));
      } else if (request.url === '/silent') {
        response.writeHead(200).write('start'); // and never ends
        silentRequestArrived();
      } else response.writeHead(404).end('missing');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const options = (maxBytes: number, signal = new AbortController().signal) => ({
    maxBytes,
    signal,
  });

  it('returns the body bytes', async () => {
    const bytes = await fetchDownload(`${baseUrl}/small`, options(100));
    expect(new TextDecoder().decode(bytes)).toBe('hello');
  });

  it('gives up as soon as the body passes the byte cap', async () => {
    await expect(fetchDownload(`${baseUrl}/large`, options(1_000))).rejects.toThrow(
      'attachment too large',
    );
  });

  it('fails on an error status', async () => {
    await expect(fetchDownload(`${baseUrl}/gone`, options(1_000))).rejects.toThrow(
      'download failed with 404',
    );
  });

  it('stops when the turn is stopped mid-download', async () => {
    const stop = new AbortController();
    const arrived = new Promise<void>((resolve) => {
      silentRequestArrived = resolve;
    });
    const pending = fetchDownload(`${baseUrl}/silent`, options(1_000, stop.signal));
    await arrived;
    stop.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
