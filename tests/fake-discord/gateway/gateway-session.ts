import { GatewayOpcodes } from 'discord-api-types/v10';
import { WebSocket } from 'ws';

/** How many dispatches a session keeps for RESUME (Discord keeps a bounded backlog too). */
const REPLAY_LIMIT = 10_000;

export interface DispatchPayload {
  op: GatewayOpcodes.Dispatch;
  t: string;
  s: number;
  d: unknown;
}

/** One WebSocket connection; it carries at most one session at a time. */
export interface GatewayConnection {
  id: number;
  socket: WebSocket;
  session: GatewaySession | null;
  heartbeats: number;
  /** Set once IDENTIFY or RESUME succeeded on this connection. */
  authenticated: boolean;
  closedByServer: boolean;
}

/**
 * An identified gateway session: its intents, the sequence counter, and the backlog of
 * dispatches a RESUME replays. It outlives its connection until invalidated, like Discord's.
 */
export class GatewaySession {
  readonly id: string;
  readonly intents: number;
  readonly shard: readonly [number, number];
  connection: GatewayConnection | null;
  #sequence = 0;
  #invalid = false;
  readonly #backlog: DispatchPayload[] = [];

  constructor(options: {
    id: string;
    intents: number;
    shard: readonly [number, number];
    connection: GatewayConnection;
  }) {
    this.id = options.id;
    this.intents = options.intents;
    this.shard = options.shard;
    this.connection = options.connection;
  }

  get sequence(): number {
    return this.#sequence;
  }

  get resumable(): boolean {
    return !this.#invalid;
  }

  invalidate(): void {
    this.#invalid = true;
  }

  /** Numbers, records and (if connected) sends one dispatch. */
  dispatch(type: string, data: unknown): void {
    if (this.#invalid) return;
    this.#sequence += 1;
    const payload: DispatchPayload = {
      op: GatewayOpcodes.Dispatch,
      t: type,
      s: this.#sequence,
      d: data,
    };
    this.#backlog.push(payload);
    if (this.#backlog.length > REPLAY_LIMIT) this.#backlog.shift();
    this.send(payload);
  }

  /** Dispatches after `sequence`, or undefined when the backlog no longer reaches back that far. */
  replayAfter(sequence: number): DispatchPayload[] | undefined {
    if (sequence > this.#sequence) return undefined;
    const missed = this.#backlog.filter((payload) => payload.s > sequence);
    const complete = missed.length === this.#sequence - sequence;
    return complete ? missed : undefined;
  }

  send(payload: unknown): void {
    const socket = this.connection?.socket;
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
  }
}

/** Sends a payload if the socket is open (a closing socket silently drops it, as on Discord). */
export function send(socket: WebSocket, payload: unknown): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(payload));
}
