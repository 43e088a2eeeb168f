import { WebSocket } from 'ws';
import type { FakeDiscord } from '../fake-discord.ts';

/** One gateway payload as it travels on the wire. */
export interface Payload {
  op: number;
  t?: string | null;
  s?: number | null;
  d?: unknown;
}

/** A minimal gateway client: queues what it receives and resolves waits on it. */
export class RawGateway {
  readonly socket: WebSocket;
  readonly received: Payload[] = [];
  readonly closed: Promise<number>;
  readonly #waiters: {
    accept: (payload: Payload) => boolean;
    resolve: (payload: Payload) => void;
  }[] = [];

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data: Buffer) => {
      const payload = JSON.parse(data.toString('utf8')) as Payload;
      this.received.push(payload);
      for (const waiter of [...this.#waiters]) {
        if (!waiter.accept(payload)) continue;
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        waiter.resolve(payload);
      }
    });
    this.closed = new Promise((resolve) => this.socket.once('close', (code) => resolve(code)));
  }

  next(accept: (payload: Payload) => boolean): Promise<Payload> {
    const existing = this.received.find(accept);
    if (existing !== undefined) return Promise.resolve(existing);
    return new Promise((resolve) => this.#waiters.push({ accept, resolve }));
  }

  send(payload: Payload): void {
    this.socket.send(JSON.stringify(payload));
  }

  identify(
    discord: FakeDiscord,
    intents: number,
    token = discord.token,
    extra: { shard?: unknown } = {},
  ): void {
    this.send({
      op: 2,
      d: {
        token,
        intents,
        properties: { os: 'linux', browser: 'test', device: 'test' },
        ...extra,
      },
    });
  }
}
