/**
 * A loopback Discord voice server that the real `@discordjs/voice` connects to: the voice
 * gateway (v8 over TLS, since the library only dials `wss://`: the bot trusts the test
 * certificate through NODE_EXTRA_CA_CERTS) and the UDP media socket.
 *
 * Gateway: HELLO, IDENTIFY (checked against the session and token the fake Discord granted),
 * READY, SELECT_PROTOCOL → SESSION_DESCRIPTION (`aead_aes256_gcm_rtpsize`, a fresh key),
 * HEARTBEAT/ACK with `seq_ack`, RESUME/RESUMED, SPEAKING both ways, CLIENTS_CONNECT and
 * CLIENT_DISCONNECT, and the DAVE opcodes the server side of DAVE can play without an MLS
 * implementation of its own: the protocol version is offered, a real P-256 external sender is
 * sent (binary op 25), the client's MLS key package (binary op 26, made by @snazzah/davey in the
 * bot) is received and checked, and the call is then downgraded to transport encryption only by
 * a transition (ops 21 → 23 → 22), as Discord does when a member cannot do DAVE. No MLS group is
 * formed: Discord's voice server builds the Add proposals (op 27) as the group's external
 * sender, and nothing installable here can build and sign them.
 *
 * UDP: IP discovery, keep-alives, members' audio as sealed RTP (with a header extension, as
 * Discord forwards it), and every packet the bot sends opened and recorded with its time.
 */
import { createSocket, type Socket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { discoveryAnswer, openRtp, sealRtp, TRANSPORT_MODE } from './rtp-packets.ts';
import { untilEvent } from './until-event.ts';
import { encodeMemberSpeech, OPUS_SILENCE, speechLevel } from './voice-audio.ts';

const TLS_DIR = new URL('../../fixtures/voice-tls/', import.meta.url);
/** The certificate the bot must trust (NODE_EXTRA_CA_CERTS) to reach the loopback server. */
export const LOOPBACK_VOICE_CA = new URL('cert.pem', TLS_DIR).pathname;

/** A frame this loud (RMS of full scale) has voice in it: the bot's own threshold. */
const AUDIBLE_LEVEL = 0.01;

const OP = {
  identify: 0,
  selectProtocol: 1,
  ready: 2,
  heartbeat: 3,
  sessionDescription: 4,
  speaking: 5,
  heartbeatAck: 6,
  resume: 7,
  hello: 8,
  resumed: 9,
  clientsConnect: 11,
  clientDisconnect: 13,
  davePrepareTransition: 21,
  daveExecuteTransition: 22,
  daveTransitionReady: 23,
  davePrepareEpoch: 24,
  daveExternalSender: 25,
  daveKeyPackage: 26,
  daveProposals: 27,
  daveInvalidCommitWelcome: 31,
} as const;

/** What the fake Discord granted a bot joining a channel (its voice state and server update). */
export interface VoiceGrant {
  guildId: string;
  channelId: string;
  userId: string;
  sessionId: string;
  token: string;
}

/** One opened packet the bot sent, with when it arrived. */
export interface BotPacket {
  guildId: string;
  at: number;
  sequence: number;
  timestamp: number;
  payload: Buffer;
  silence: boolean;
}

/** What the server saw of the DAVE handshake on a connection. */
export interface DaveRecord {
  maxProtocolVersion: number;
  offered: number;
  keyPackage: Buffer | undefined;
  transitionsReady: number[];
  downgraded: boolean;
  /** Transitions the client declared invalid (op 31): its way back from a message it could not use. */
  invalidated: number[];
}

interface Connection {
  socket: WebSocket;
  seq: number;
  grant: VoiceGrant | undefined;
  ssrc: number;
  udp: { address: string; port: number } | undefined;
  key: Buffer | undefined;
  dave: DaveRecord;
}

interface Member {
  userId: string;
  guildId: string;
  ssrc: number;
  sequence: number;
  timestamp: number;
  nonce: number;
}

export interface LoopbackVoiceOptions {
  /** Offer DAVE (the protocol version, external sender, then a downgrade); default true. */
  offerDave?: boolean;
  heartbeatIntervalMs?: number;
}

export class LoopbackVoiceServer {
  readonly #https: Server;
  readonly #wss: WebSocketServer;
  readonly #udp: Socket;
  readonly #options: Required<LoopbackVoiceOptions>;
  readonly #grants = new Map<string, VoiceGrant>();
  readonly #connections = new Set<Connection>();
  readonly #members = new Map<string, Member>();
  readonly #events = new EventEmitter();
  readonly #packets: BotPacket[] = [];
  readonly #identified: { grant: VoiceGrant; dave: DaveRecord; at: number }[] = [];
  #nextSsrc = 1000;

  private constructor(options: LoopbackVoiceOptions) {
    this.#options = { offerDave: true, heartbeatIntervalMs: 13_750, ...options };
    this.#https = createServer({
      key: readFileSync(new URL('key.pem', TLS_DIR)),
      cert: readFileSync(new URL('cert.pem', TLS_DIR)),
    });
    this.#wss = new WebSocketServer({ server: this.#https });
    this.#wss.on('connection', (socket) => this.#open(socket));
    this.#udp = createSocket('udp4');
    this.#udp.on('message', (message, from) => this.#udpMessage(message, from));
    this.#events.setMaxListeners(100);
  }

  static async start(options: LoopbackVoiceOptions = {}): Promise<LoopbackVoiceServer> {
    const server = new LoopbackVoiceServer(options);
    await new Promise<void>((resolve) => server.#https.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.#udp.bind(0, '127.0.0.1', resolve));
    return server;
  }

  /** What VOICE_SERVER_UPDATE carries as `endpoint`: host and port of the voice gateway. */
  get endpoint(): string {
    return `127.0.0.1:${(this.#https.address() as AddressInfo).port}`;
  }

  /** The fake Discord granted this session: an IDENTIFY must carry exactly it. */
  grant(grant: VoiceGrant): void {
    this.#grants.set(grant.guildId, grant);
  }

  /** Every IDENTIFY accepted, with what was seen of DAVE on its connection. */
  identified(): readonly { grant: VoiceGrant; dave: DaveRecord; at: number }[] {
    return this.#identified;
  }

  /** Every packet the bot sent, in arrival order. */
  botPackets(guildId?: string): BotPacket[] {
    return this.#packets.filter((packet) => guildId === undefined || packet.guildId === guildId);
  }

  /** A member is in the guild's voice channel: the bot's connection is told (CLIENTS_CONNECT). */
  memberJoined(guildId: string, userId: string): void {
    const ssrc = (this.#nextSsrc += 1);
    this.#members.set(userId, { userId, guildId, ssrc, sequence: 0, timestamp: 0, nonce: 0 });
    for (const connection of this.#connectionsOf(guildId)) {
      this.#send(connection, OP.clientsConnect, { user_ids: [userId] });
    }
  }

  memberLeft(userId: string): void {
    const member = this.#members.get(userId);
    if (member === undefined) return;
    this.#members.delete(userId);
    for (const connection of this.#connectionsOf(member.guildId)) {
      this.#send(connection, OP.clientDisconnect, { user_id: userId });
    }
  }

  /**
   * A member speaks: SPEAKING on the bot's connection, then their speech as 20 ms RTP packets
   * paced in real time (the bot judges pauses by time), then five Opus silence frames. Resolves
   * with the time the last packet with voice in it (not the recording's quiet tail) was sent.
   */
  async speak(userId: string, speech: Uint8Array): Promise<number> {
    const member = this.#members.get(userId);
    if (member === undefined) throw new Error(`${userId} is not in a voice channel`);
    const connection = this.#connectionsOf(member.guildId).find((each) => each.udp !== undefined);
    if (connection === undefined) throw new Error('the bot has no media connection here');
    this.#send(connection, OP.speaking, { user_id: userId, ssrc: member.ssrc, speaking: 1 });
    const packets = encodeMemberSpeech(speech);
    const started = performance.now();
    let lastVoiced = Date.now();
    const tail: Buffer[] = Array.from({ length: 5 }, () => OPUS_SILENCE);
    for (const [index, packet] of [...packets, ...tail].entries()) {
      const due = started + index * 20 - performance.now();
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      this.#sendMedia(connection, member, packet);
      // "Stopped speaking" is the last frame with voice in it, not the recording's quiet tail.
      const frame = speech.subarray(index * 960, (index + 1) * 960);
      if (index < packets.length && speechLevel(frame) >= AUDIBLE_LEVEL) lastVoiced = Date.now();
    }
    return lastVoiced;
  }

  /** Resolves when `select` holds for something the server saw (checked on every event). */
  until<T>(select: () => T | undefined, timeoutMs = 60_000, what = 'voice event'): Promise<T> {
    return untilEvent(this.#events, select, {
      timeoutMs,
      what: `${what} at the loopback voice server`,
    });
  }

  /**
   * A fault: MLS proposals (binary op 27) that are not a valid MLS message, as a voice server
   * with a bug (or a protocol change) might send them.
   */
  sendMalformedProposals(guildId: string): void {
    for (const connection of this.#connectionsOf(guildId)) {
      // optype 0 (append), then bytes that are no MLSMessage.
      this.#sendBinary(connection, OP.daveProposals, Buffer.from([0, 0xff, 0x00, 0x13, 0x37]));
    }
  }

  /** What the server saw of the DAVE handshake on the guild's current connections. */
  dave(guildId: string): DaveRecord[] {
    return this.#connectionsOf(guildId).map((connection) => connection.dave);
  }

  /** Whether the bot holds a gateway connection for the guild. */
  connected(guildId: string): boolean {
    return this.#connectionsOf(guildId).some((connection) => connection.udp !== undefined);
  }

  /** Closes every gateway connection with `code` (4014: disconnected; 4015: crashed, resume). */
  closeConnections(code: number): void {
    for (const connection of this.#connections) connection.socket.close(code, 'closed by test');
  }

  async close(): Promise<void> {
    for (const connection of this.#connections) connection.socket.terminate();
    this.#wss.close();
    await new Promise<void>((resolve) => this.#https.close(() => resolve()));
    await new Promise<void>((resolve) => this.#udp.close(() => resolve()));
  }

  #connectionsOf(guildId: string): Connection[] {
    return [...this.#connections].filter((connection) => connection.grant?.guildId === guildId);
  }

  #open(socket: WebSocket): void {
    const connection: Connection = {
      socket,
      seq: 0,
      grant: undefined,
      ssrc: 0,
      udp: undefined,
      key: undefined,
      dave: {
        maxProtocolVersion: 0,
        offered: 0,
        keyPackage: undefined,
        transitionsReady: [],
        downgraded: false,
        invalidated: [],
      },
    };
    this.#connections.add(connection);
    socket.on('message', (data, isBinary) => this.#receive(connection, data as Buffer, isBinary));
    socket.on('close', () => {
      this.#connections.delete(connection);
      this.#emit();
    });
    socket.on('error', () => undefined);
    this.#send(connection, OP.hello, { heartbeat_interval: this.#options.heartbeatIntervalMs });
  }

  #receive(connection: Connection, data: Buffer, isBinary: boolean): void {
    if (isBinary) {
      this.#binary(connection, data);
      return;
    }
    const packet = JSON.parse(data.toString('utf8')) as { op: number; d: Record<string, unknown> };
    switch (packet.op) {
      case OP.identify:
        this.#identify(connection, packet.d);
        break;
      case OP.resume:
        this.#resume(connection, packet.d);
        break;
      case OP.heartbeat:
        this.#send(connection, OP.heartbeatAck, { t: packet.d['t'] });
        break;
      case OP.selectProtocol:
        this.#selectProtocol(connection, packet.d);
        break;
      case OP.daveTransitionReady:
        this.#transitionReady(connection, Number(packet.d['transition_id']));
        break;
      case OP.daveInvalidCommitWelcome:
        connection.dave.invalidated.push(Number(packet.d['transition_id']));
        break;
      case OP.speaking:
        break;
      default:
        connection.socket.close(4001, 'Unknown opcode');
    }
    this.#emit();
  }

  #identify(connection: Connection, data: Record<string, unknown>): void {
    const grant = this.#grants.get(String(data['server_id']));
    if (
      grant === undefined ||
      grant.userId !== data['user_id'] ||
      grant.sessionId !== data['session_id'] ||
      grant.token !== data['token']
    ) {
      connection.socket.close(4004, 'Authentication failed');
      return;
    }
    connection.grant = grant;
    connection.ssrc = this.#nextSsrc += 1;
    connection.dave.maxProtocolVersion = Number(data['max_dave_protocol_version'] ?? 0);
    this.#identified.push({ grant, dave: connection.dave, at: Date.now() });
    const port = this.#udp.address().port;
    this.#send(connection, OP.ready, {
      ssrc: connection.ssrc,
      ip: '127.0.0.1',
      port,
      modes: [TRANSPORT_MODE, 'aead_xchacha20_poly1305_rtpsize'],
      heartbeat_interval: 1,
    });
  }

  #resume(connection: Connection, data: Record<string, unknown>): void {
    const grant = this.#grants.get(String(data['server_id']));
    if (
      grant === undefined ||
      grant.sessionId !== data['session_id'] ||
      grant.token !== data['token']
    ) {
      connection.socket.close(4006, 'Session no longer valid');
      return;
    }
    connection.grant = grant;
    this.#send(connection, OP.resumed, null);
  }

  #selectProtocol(connection: Connection, data: Record<string, unknown>): void {
    const chosen = data['data'] as { address: string; port: number; mode: string };
    if (chosen.mode !== TRANSPORT_MODE) {
      connection.socket.close(4016, 'Unknown encryption mode');
      return;
    }
    connection.udp = { address: chosen.address, port: chosen.port };
    connection.key = randomBytes(32);
    const offered = this.#options.offerDave ? Math.min(1, connection.dave.maxProtocolVersion) : 0;
    connection.dave.offered = offered;
    this.#send(connection, OP.sessionDescription, {
      mode: TRANSPORT_MODE,
      secret_key: [...connection.key],
      dave_protocol_version: offered,
    });
    const members = [...this.#members.values()].filter(
      (member) => member.guildId === connection.grant?.guildId,
    );
    if (members.length > 0) {
      this.#send(connection, OP.clientsConnect, {
        user_ids: members.map((member) => member.userId),
      });
    }
    if (offered > 0) void this.#offerDave(connection);
  }

  /** The external sender, as Discord's voice server announces itself to the MLS group. */
  async #offerDave(connection: Connection): Promise<void> {
    const { generateP256Keypair } = await import('@snazzah/davey');
    const { public: publicKey } = generateP256Keypair();
    // ExternalSender { opaque signature_key<V>; Credential { uint16 type = basic; opaque identity<V> } }
    const identity = Buffer.from('loopback-voice-server');
    const externalSender = Buffer.concat([
      mlsVarint(publicKey.byteLength),
      publicKey,
      Buffer.from([0x00, 0x01]),
      mlsVarint(identity.byteLength),
      identity,
    ]);
    this.#sendBinary(connection, OP.daveExternalSender, externalSender);
  }

  #binary(connection: Connection, data: Buffer): void {
    const op = data.readUInt8(0);
    if (op === OP.daveKeyPackage) {
      connection.dave.keyPackage = data.subarray(1);
      // No MLS group can be formed here: downgrade the call to transport encryption only.
      this.#send(connection, OP.davePrepareTransition, { transition_id: 1, protocol_version: 0 });
    }
    this.#emit();
  }

  #transitionReady(connection: Connection, transitionId: number): void {
    connection.dave.transitionsReady.push(transitionId);
    this.#send(connection, OP.daveExecuteTransition, { transition_id: transitionId });
    connection.dave.downgraded = true;
  }

  #udpMessage(message: Buffer, from: { address: string; port: number }): void {
    const answer = discoveryAnswer(message, from);
    if (answer !== undefined) {
      this.#udp.send(answer, from.port, from.address);
      return;
    }
    if (message.byteLength <= 8) return; // keep-alive
    const connection = [...this.#connections].find(
      (each) => each.udp?.port === from.port && each.key !== undefined,
    );
    if (connection?.key === undefined || connection.grant === undefined) return;
    const packet = openRtp(message, connection.key);
    if (packet === undefined || packet.ssrc !== connection.ssrc) return;
    this.#packets.push({
      guildId: connection.grant.guildId,
      at: Date.now(),
      sequence: packet.sequence,
      timestamp: packet.timestamp,
      payload: packet.payload,
      silence: packet.payload.equals(OPUS_SILENCE),
    });
    this.#emit();
  }

  #sendMedia(connection: Connection, member: Member, payload: Buffer): void {
    if (connection.udp === undefined || connection.key === undefined) return;
    member.sequence = (member.sequence + 1) & 0xffff;
    member.timestamp = (member.timestamp + 960) >>> 0;
    member.nonce += 1;
    const sealed = sealRtp(
      { sequence: member.sequence, timestamp: member.timestamp, ssrc: member.ssrc, payload },
      { key: connection.key, nonce: member.nonce },
    );
    this.#udp.send(sealed, connection.udp.port, connection.udp.address);
  }

  #send(connection: Connection, op: number, d: unknown): void {
    connection.seq += 1;
    if (connection.socket.readyState === connection.socket.OPEN) {
      connection.socket.send(JSON.stringify({ op, d, seq: connection.seq }));
    }
  }

  #sendBinary(connection: Connection, op: number, payload: Buffer): void {
    connection.seq += 1;
    const header = Buffer.alloc(3);
    header.writeUInt16BE(connection.seq & 0xffff, 0);
    header.writeUInt8(op, 2);
    if (connection.socket.readyState === connection.socket.OPEN) {
      connection.socket.send(Buffer.concat([header, payload]));
    }
  }

  #emit(): void {
    this.#events.emit('event');
  }
}

/** An MLS variable-length integer (RFC 9420 §2.1.2): one byte below 64, two below 16384. */
function mlsVarint(value: number): Buffer {
  if (value < 64) return Buffer.from([value]);
  return Buffer.from([0x40 | (value >> 8), value & 0xff]);
}
