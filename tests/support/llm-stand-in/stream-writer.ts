/** Writes a rendered stream's frames to the HTTP response, and hangs up when a script says so. */
import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn, setTimeout as delay } from 'node:timers/promises';
import type { Frame } from './rendered-response.ts';

const DROP_GRACE_MS = 10;

const hungUpResponses = new WeakSet<ServerResponse>();

/** Destroys the socket on purpose (a scripted network failure, not the client going away). */
export function hangUp(response: ServerResponse): void {
  hungUpResponses.add(response);
  response.socket?.destroy();
}

/** True when the stand-in itself hung up on this response. */
export function hungUp(response: ServerResponse): boolean {
  return hungUpResponses.has(response);
}

export async function writeStream(
  response: ServerResponse,
  frames: Frame[],
  options: { eventDelayMs: number; chunkBytes: number | undefined; settled: Promise<void> },
): Promise<void> {
  let gone = false;
  void options.settled.then(() => {
    gone = true;
  });
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  response.flushHeaders();
  for (const frame of frames) {
    if (gone) return;
    if (options.eventDelayMs > 0) await delay(options.eventDelayMs);
    if (frame.type === 'hold') {
      await Promise.race([frame.gate.wait(), options.settled]);
    } else if (frame.type === 'drop') {
      // A real connection breaks some time after the last event arrived; without this grace the
      // client's HTTP stack may discard those events together with the reset.
      await delay(DROP_GRACE_MS);
      hangUp(response);
      return;
    } else {
      await write(response, Buffer.from(frame.text, 'utf8'), options);
    }
  }
  if (!gone) response.end();
}

/** Writes bytes, optionally in small slices on separate turns so the client reads them apart. */
async function write(
  response: ServerResponse,
  bytes: Buffer,
  options: { chunkBytes: number | undefined; settled: Promise<void> },
): Promise<void> {
  const size = options.chunkBytes ?? bytes.length;
  for (let start = 0; start < bytes.length; start += size) {
    if (response.destroyed) return;
    const accepted = response.write(bytes.subarray(start, start + size));
    if (!accepted) {
      await Promise.race([
        new Promise((resolve) => response.once('drain', resolve)),
        options.settled,
      ]);
    }
    if (options.chunkBytes !== undefined) await nextTurn();
  }
}
