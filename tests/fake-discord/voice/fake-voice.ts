/**
 * Voice on the loopback Discord: what the gateway does with a bot's op 4 VOICE_STATE_UPDATE —
 * the bot's voice state changes (VOICE_STATE_UPDATE, to sessions with GUILD_VOICE_STATES) and,
 * when it joins, VOICE_SERVER_UPDATE names a voice server (a LoopbackVoiceServer) and a token —
 * and members joining and leaving voice channels, speaking, and the voice server of a guild
 * moving mid-call (a new VOICE_SERVER_UPDATE with another endpoint, the old server closing).
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { GatewayIntentBits } from 'discord-api-types/v10';
import { memberPayload } from '../payloads/user-payloads.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import { LoopbackVoiceServer, type LoopbackVoiceOptions } from './loopback-voice-server.ts';
import { untilEvent } from './until-event.ts';

interface VoiceState {
  channelId: string;
  sessionId: string;
}

export class FakeVoice {
  readonly #context: FakeDiscordContext;
  readonly #options: LoopbackVoiceOptions;
  /** guild → user → voice state. */
  readonly #states = new Map<string, Map<string, VoiceState>>();
  readonly #servers = new Map<string, LoopbackVoiceServer>();
  readonly #allServers: LoopbackVoiceServer[] = [];
  readonly #opCalls: { guildId: string; channelId: string | null; at: number }[] = [];
  #pending: Promise<unknown> = Promise.resolve();
  readonly #events = new EventEmitter();

  constructor(context: FakeDiscordContext, options: LoopbackVoiceOptions = {}) {
    this.#context = context;
    this.#options = options;
  }

  /** Every op 4 the bot sent, in order. */
  botRequests(): readonly { guildId: string; channelId: string | null; at: number }[] {
    return this.#opCalls;
  }

  /** Resolves when `select` holds, checked on every op 4 and voice state change. */
  until<T>(select: () => T | undefined, timeoutMs = 60_000, what = 'voice state'): Promise<T> {
    return untilEvent(this.#events, select, { timeoutMs, what });
  }

  /** The voice channel a user is in, if any. */
  channelOf(guildId: string, userId: string): string | undefined {
    return this.#states.get(guildId)?.get(userId)?.channelId;
  }

  /** The guild's current voice server (started on the bot's first join). */
  server(guildId: string): LoopbackVoiceServer | undefined {
    return this.#servers.get(guildId);
  }

  /** @internal the gateway hands op 4 here. */
  botVoiceStateUpdate(sessionId: string, data: unknown): void {
    const { guild_id: guildId, channel_id: channelId } = (data ?? {}) as {
      guild_id?: string;
      channel_id?: string | null;
    };
    if (typeof guildId !== 'string') return;
    this.#opCalls.push({ guildId, channelId: channelId ?? null, at: Date.now() });
    this.#events.emit('event');
    this.#pending = this.#pending.then(() =>
      this.#applyBot(guildId, channelId ?? null, sessionId).catch(() => undefined),
    );
  }

  async #applyBot(guildId: string, channelId: string | null, sessionId: string): Promise<void> {
    const botId = this.#context.world.bot.userId;
    const previous = this.channelOf(guildId, botId);
    this.#setState(guildId, botId, channelId === null ? undefined : { channelId, sessionId });
    if (channelId === null) {
      if (previous !== undefined) this.#servers.get(guildId)?.closeConnections(4014);
      return;
    }
    const server = this.#servers.get(guildId) ?? (await this.#startServer(guildId));
    this.#announceServer(guildId, channelId, sessionId, server);
  }

  /** A member enters a voice channel (or moves to another): VOICE_STATE_UPDATE. */
  join(options: { userId: string; channelId: string }): void {
    const guildId = this.#context.world.channel(options.channelId).guildId;
    if (guildId === null) throw new Error('not a guild channel');
    this.#setState(guildId, options.userId, {
      channelId: options.channelId,
      sessionId: randomBytes(16).toString('hex'),
    });
    const server = this.#servers.get(guildId);
    if (
      server !== undefined &&
      this.channelOf(guildId, this.#context.world.bot.userId) === options.channelId
    ) {
      server.memberJoined(guildId, options.userId);
    }
  }

  /** A member leaves voice: VOICE_STATE_UPDATE with no channel. */
  leave(options: { userId: string; guildId: string }): void {
    this.#setState(options.guildId, options.userId, undefined);
    this.#servers.get(options.guildId)?.memberLeft(options.userId);
  }

  /** A member speaks in the bot's voice channel; resolves when their last voiced packet left. */
  speak(options: { userId: string; guildId: string; speech: Uint8Array }): Promise<number> {
    const server = this.#servers.get(options.guildId);
    if (server === undefined) throw new Error('no voice server for this guild yet');
    return server.speak(options.userId, options.speech);
  }

  /**
   * The guild's voice server moves: a new server, a VOICE_SERVER_UPDATE naming it, and the old
   * server's connections closed (Discord closes the old voice gateway).
   */
  async moveServer(guildId: string): Promise<LoopbackVoiceServer> {
    const old = this.#servers.get(guildId);
    const botId = this.#context.world.bot.userId;
    const state = this.#states.get(guildId)?.get(botId);
    if (old === undefined || state === undefined) throw new Error('the bot is not in voice there');
    const server = await this.#startServer(guildId);
    for (const [userId, member] of this.#states.get(guildId) ?? []) {
      if (userId !== botId && member.channelId === state.channelId)
        server.memberJoined(guildId, userId);
    }
    this.#announceServer(guildId, state.channelId, state.sessionId, server);
    old.closeConnections(4014);
    return server;
  }

  async close(): Promise<void> {
    await Promise.all(this.#allServers.map((server) => server.close()));
  }

  async #startServer(guildId: string): Promise<LoopbackVoiceServer> {
    const server = await LoopbackVoiceServer.start(this.#options);
    this.#servers.set(guildId, server);
    this.#allServers.push(server);
    return server;
  }

  #announceServer(
    guildId: string,
    channelId: string,
    sessionId: string,
    server: LoopbackVoiceServer,
  ): void {
    const token = randomBytes(8).toString('hex');
    const botId = this.#context.world.bot.userId;
    server.grant({ guildId, channelId, userId: botId, sessionId, token });
    for (const [userId, state] of this.#states.get(guildId) ?? []) {
      if (userId !== botId && state.channelId === channelId) server.memberJoined(guildId, userId);
    }
    this.#context.gateway.dispatch({
      type: 'VOICE_SERVER_UPDATE',
      intent: null,
      guildId,
      build: () => ({ token, guild_id: guildId, endpoint: server.endpoint }),
    });
  }

  #setState(guildId: string, userId: string, state: VoiceState | undefined): void {
    const states = this.#states.get(guildId) ?? new Map<string, VoiceState>();
    this.#states.set(guildId, states);
    const previous = states.get(userId);
    if (state === undefined) states.delete(userId);
    else states.set(userId, state);
    this.#events.emit('event');
    const member = this.#context.world.member(guildId, userId);
    const user = this.#context.world.user(userId);
    this.#context.gateway.dispatch({
      type: 'VOICE_STATE_UPDATE',
      intent: GatewayIntentBits.GuildVoiceStates,
      guildId,
      build: () => ({
        guild_id: guildId,
        channel_id: state?.channelId ?? null,
        user_id: userId,
        ...(member === undefined ? {} : { member: memberPayload(member, user) }),
        session_id: state?.sessionId ?? previous?.sessionId ?? '',
        deaf: false,
        mute: false,
        self_deaf: false,
        self_mute: false,
        self_video: false,
        suppress: false,
        request_to_speak_timestamp: null,
      }),
    });
  }
}
