import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayCloseCodes, GatewayOpcodes } from 'discord-api-types/v10';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EventHub, GatewayLifecycleEvent } from '../events/event-hub.ts';
import type { World } from '../state/world.ts';
import { send, type GatewayConnection, type GatewaySession } from './gateway-session.ts';
import { identify, resume, type HandshakeHost } from './handshake.ts';
import { membersChunk } from './ready-payloads.ts';
import { shardReceives, type IdentifyRecord } from './shard-routing.ts';

export interface DispatchRequest {
  type: string;
  /** The intent a session needs to receive it; null for all sessions. */
  intent: number | null;
  /**
   * The guild the event is about: only the session of the shard owning it receives it; null
   * (a DM, or no guild) goes to shard 0 only, as on Discord.
   */
  guildId: string | null;
  /** The payload for one session, or undefined to skip that session. */
  build: (session: GatewaySession) => unknown;
}

export interface GatewayServerOptions {
  world: World;
  hub: EventHub;
  heartbeatIntervalMs: number;
  /** `ws://127.0.0.1:PORT`, known once the HTTP server listens. */
  origin: () => string;
  /** A session's op 4 VOICE_STATE_UPDATE (the bot joining or leaving a voice channel). */
  voiceStateUpdate?: (sessionId: string, data: unknown) => void;
}

/** The part of the gateway a test steers: faults and observations. */
export interface GatewayControl {
  /** Closes every connection from the server side with `code` (4000 → the client resumes). */
  closeConnections(code: number, reason?: string): void;
  /**
   * Ends every connection without a close frame (the client sees 1006, as after a network
   * drop); sessions stay resumable.
   */
  dropConnections(): void;
  /**
   * Answers every WebSocket upgrade from now on with this HTTP status instead of accepting it
   * (a gateway that refuses the bot); `undefined` accepts again.
   */
  refuseConnections(status: number | undefined): void;
  /** Sends op 7 RECONNECT: the client should reconnect and RESUME. */
  sendReconnect(): void;
  /** Sends op 9 INVALID_SESSION; `resumable: false` forces a fresh IDENTIFY. */
  invalidateSessions(options: { resumable: boolean }): void;
  /** Sends op 1: the client must heartbeat immediately. */
  requestHeartbeat(): void;
  /** Stops (false) or resumes (true) answering heartbeats, making the connection a zombie. */
  acknowledgeHeartbeats(enabled: boolean): void;
  /** Makes the next RESUME fail with INVALID_SESSION (d: false), as for an expired session. */
  rejectNextResume(): void;
  /**
   * Holds back the dispatches `filter` picks (as Discord's echo of a REST write may lag behind
   * its response) until `releaseDispatches`; they are then sent in their order.
   */
  holdDispatches(filter: (type: string, data: unknown) => boolean): void;
  /** Sends the held dispatches and holds no more. */
  releaseDispatches(): void;
  /** Live sessions with their connection state and `[shard_id, num_shards]`. */
  sessions(): {
    id: string;
    intents: number;
    sequence: number;
    connected: boolean;
    shard: readonly [number, number];
  }[];
  /** Every accepted IDENTIFY so far, in order, with its shard and time (for max_concurrency). */
  identifies(): readonly IdentifyRecord[];
}

const GATEWAY_PATHS = new Set(['/gateway', '/resume']);

/** Server-side closes after which Discord still accepts a RESUME of the session. */
const RESUMABLE_CLOSE_CODES = new Set<number>([
  GatewayCloseCodes.UnknownError,
  GatewayCloseCodes.SessionTimedOut,
]);

/**
 * The WebSocket gateway: HELLO, IDENTIFY → READY + GUILD_CREATE, heartbeats, RESUME with
 * replay, INVALID_SESSION, close codes, and dispatches numbered per session and filtered by
 * intents. It speaks JSON without compression (`compress=zlib-stream` is not offered).
 */
export class GatewayServer implements GatewayControl {
  readonly #options: GatewayServerOptions;
  readonly #webSockets = new WebSocketServer({ noServer: true });
  readonly #connections = new Set<GatewayConnection>();
  readonly #sessions = new Map<string, GatewaySession>();
  #nextConnectionId = 1;
  #acknowledgeHeartbeats = true;
  #rejectNextResume = false;
  #refusalStatus: number | undefined;
  #hold: ((type: string, data: unknown) => boolean) | undefined;
  #held: (() => void)[] = [];
  readonly #identifies: IdentifyRecord[] = [];

  constructor(options: GatewayServerOptions) {
    this.#options = options;
  }

  /** Takes over an HTTP upgrade; false when the path is not a gateway path. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (!GATEWAY_PATHS.has(url.pathname)) return false;
    if (this.#refusalStatus !== undefined) {
      socket.end(`HTTP/1.1 ${this.#refusalStatus} Refused\r\nConnection: close\r\n\r\n`);
      this.#lifecycle({ kind: 'refused', status: this.#refusalStatus });
      return true;
    }
    this.#webSockets.handleUpgrade(request, socket, head, (webSocket) =>
      this.#accept(webSocket, url),
    );
    return true;
  }

  dispatch(request: DispatchRequest): void {
    for (const session of this.#sessions.values()) {
      if (!session.resumable) continue;
      if (request.intent !== null && (session.intents & request.intent) === 0) continue;
      if (!shardReceives(session.shard, request.guildId)) continue;
      const data = request.build(session);
      if (data === undefined) continue;
      if (this.#hold?.(request.type, data) === true) {
        this.#held.push(() => session.dispatch(request.type, data));
      } else {
        session.dispatch(request.type, data);
      }
    }
  }

  holdDispatches(filter: (type: string, data: unknown) => boolean): void {
    this.#hold = filter;
  }

  releaseDispatches(): void {
    this.#hold = undefined;
    const held = this.#held;
    this.#held = [];
    for (const send of held) send();
  }

  closeConnections(code: number, reason = 'closed by the test'): void {
    for (const connection of this.#connections) {
      if (!RESUMABLE_CLOSE_CODES.has(code)) connection.session?.invalidate();
      this.#closeFromServer(connection, code, reason);
    }
  }

  dropConnections(): void {
    for (const connection of this.#connections) connection.socket.terminate();
  }

  refuseConnections(status: number | undefined): void {
    this.#refusalStatus = status;
  }

  sendReconnect(): void {
    this.#broadcastOp({ op: GatewayOpcodes.Reconnect, d: null });
  }

  invalidateSessions(options: { resumable: boolean }): void {
    for (const connection of this.#connections) {
      if (!options.resumable) connection.session?.invalidate();
      send(connection.socket, { op: GatewayOpcodes.InvalidSession, d: options.resumable });
    }
  }

  requestHeartbeat(): void {
    this.#broadcastOp({ op: GatewayOpcodes.Heartbeat, d: null });
  }

  acknowledgeHeartbeats(enabled: boolean): void {
    this.#acknowledgeHeartbeats = enabled;
  }

  rejectNextResume(): void {
    this.#rejectNextResume = true;
  }

  sessions(): {
    id: string;
    intents: number;
    sequence: number;
    connected: boolean;
    shard: readonly [number, number];
  }[] {
    return [...this.#sessions.values()]
      .filter((session) => session.resumable)
      .map((session) => ({
        id: session.id,
        intents: session.intents,
        sequence: session.sequence,
        connected: session.connection !== null,
        shard: session.shard,
      }));
  }

  identifies(): readonly IdentifyRecord[] {
    return [...this.#identifies];
  }

  async close(): Promise<void> {
    for (const connection of this.#connections) connection.socket.terminate();
    await new Promise<void>((resolve) => this.#webSockets.close(() => resolve()));
  }

  #accept(socket: WebSocket, url: URL): void {
    const connection: GatewayConnection = {
      id: this.#nextConnectionId++,
      socket,
      session: null,
      heartbeats: 0,
      authenticated: false,
      closedByServer: false,
    };
    this.#connections.add(connection);
    this.#lifecycle({
      kind: 'connected',
      connectionId: connection.id,
      path: url.pathname,
      query: url.search,
    });
    socket.on('message', (data: Buffer) => this.#receive(connection, data.toString('utf8')));
    socket.on('close', (code) => this.#closed(connection, code));
    socket.on('error', () => undefined);
    if (url.searchParams.get('v') !== '10') {
      this.#closeFromServer(connection, GatewayCloseCodes.InvalidAPIVersion, 'Invalid API version');
      return;
    }
    if ((url.searchParams.get('encoding') ?? 'json') !== 'json') {
      this.#closeFromServer(
        connection,
        GatewayCloseCodes.DecodeError,
        'Only JSON encoding is offered',
      );
      return;
    }
    send(socket, {
      op: GatewayOpcodes.Hello,
      d: { heartbeat_interval: this.#options.heartbeatIntervalMs },
      s: null,
      t: null,
    });
  }

  #receive(connection: GatewayConnection, text: string): void {
    let payload: { op?: unknown; d?: unknown };
    try {
      payload = JSON.parse(text) as { op?: unknown; d?: unknown };
    } catch {
      this.#closeFromServer(
        connection,
        GatewayCloseCodes.DecodeError,
        'Error while decoding payload.',
      );
      return;
    }
    switch (payload.op) {
      case GatewayOpcodes.Heartbeat:
        this.#heartbeat(connection, payload.d);
        return;
      case GatewayOpcodes.Identify:
        identify(this.#handshakeHost(), connection, payload.d ?? {});
        return;
      case GatewayOpcodes.Resume:
        resume(this.#handshakeHost(), connection, payload.d ?? {});
        return;
      case GatewayOpcodes.RequestGuildMembers:
        if (this.#requireAuthenticated(connection)) this.#requestMembers(connection, payload.d);
        return;
      case GatewayOpcodes.PresenceUpdate:
        this.#requireAuthenticated(connection);
        return;
      case GatewayOpcodes.VoiceStateUpdate:
        if (this.#requireAuthenticated(connection) && connection.session !== null) {
          this.#options.voiceStateUpdate?.(connection.session.id, payload.d);
        }
        return;
      default:
        this.#closeFromServer(connection, GatewayCloseCodes.UnknownOpcode, 'Unknown opcode.');
    }
  }

  #heartbeat(connection: GatewayConnection, sequence: unknown): void {
    connection.heartbeats += 1;
    this.#lifecycle({
      kind: 'heartbeat',
      connectionId: connection.id,
      sequence: typeof sequence === 'number' ? sequence : null,
    });
    if (this.#acknowledgeHeartbeats) send(connection.socket, { op: GatewayOpcodes.HeartbeatAck });
  }

  #requestMembers(connection: GatewayConnection, data: unknown): void {
    const chunk = membersChunk(this.#options.world, data);
    if (chunk !== undefined) connection.session?.dispatch('GUILD_MEMBERS_CHUNK', chunk);
  }

  #handshakeHost(): HandshakeHost {
    return {
      world: this.#options.world,
      sessions: this.#sessions,
      resumeUrl: () => `${this.#options.origin()}/resume`,
      lifecycle: (event) => this.#lifecycle(event),
      close: (connection, code, reason) => this.#closeFromServer(connection, code, reason),
      takeResumeRejection: () => {
        const reject = this.#rejectNextResume;
        this.#rejectNextResume = false;
        return reject;
      },
    };
  }

  #requireAuthenticated(connection: GatewayConnection): boolean {
    if (connection.authenticated) return true;
    this.#closeFromServer(connection, GatewayCloseCodes.NotAuthenticated, 'Not authenticated.');
    return false;
  }

  #closeFromServer(connection: GatewayConnection, code: number, reason: string): void {
    connection.closedByServer = true;
    connection.socket.close(code, reason);
  }

  #closed(connection: GatewayConnection, code: number): void {
    this.#connections.delete(connection);
    const session = connection.session;
    const by = connection.closedByServer ? 'server' : 'client';
    if (session !== null && session.connection === connection) {
      session.connection = null;
      // A client that closes with 1000 or 1001 ends its session (Discord's documented rule).
      if (by === 'client' && (code === 1000 || code === 1001)) session.invalidate();
    }
    this.#lifecycle({ kind: 'closed', connectionId: connection.id, code, by });
  }

  #broadcastOp(payload: { op: GatewayOpcodes; d: unknown }): void {
    for (const connection of this.#connections) send(connection.socket, payload);
  }

  #lifecycle(event: GatewayLifecycleEvent): void {
    if (event.kind === 'identified') {
      this.#identifies.push({
        shard: event.shard,
        at: this.#options.world.clock.now(),
        connectionId: event.connectionId,
      });
    }
    this.#options.hub.emit({ type: 'gateway', event });
  }
}
