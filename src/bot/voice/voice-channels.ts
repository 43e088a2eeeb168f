import type { Message, VoiceBasedChannel, VoiceState } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { SpeechService } from '../../core/speech.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { AccountingOptions } from '../turns/turn-accounting.ts';
import type { VoiceCall } from './voice-call.ts';
import type { VoiceIntake } from './voice-intake.ts';

/** Members remembered as having talked with the bot lately, for auto-join. */
const TALKERS_KEPT = 10_000;
/** "Lately": a member who talked with the bot within this is followed into voice. */
const TALKED_LATELY_MS = 30 * 60_000;

/** Conversation in voice channels, as the operator set it up (VOICE_*). */
export interface VoiceChannelSettings {
  /** Join a voice channel when a member the bot talked with lately enters one. */
  autoJoin: boolean;
  /** Post each exchange's text in the voice channel's text chat too. */
  textChat: boolean;
  /** Silence that ends a member's utterance. */
  silenceMs: number;
}

export interface VoiceChannelsOptions {
  config: VoiceChannelSettings;
  speech: SpeechService;
  intake: VoiceIntake;
  stops: StopRegistry;
  accounting: AccountingOptions;
  clock: Clock;
  logger: Logger;
}

export type JoinOutcome = 'joined' | 'already' | 'moved';

/** What `/voice status` shows of a guild's call. */
export interface VoiceStatus {
  channelId: string;
  speaking: boolean;
  /** Members in the channel, the bot left out. */
  listeners: number;
}

/**
 * The bot's voice calls: one per guild at most, in this process — the one whose gateway shard
 * holds the guild, since Discord sends a guild's voice state and server updates (and its
 * interactions) to that shard only. Joins on `/voice join` or, with VOICE_AUTO_JOIN, when a
 * member who talked with it lately enters a voice channel; leaves on `/voice leave`, when
 * left alone, or when the connection is lost for good. The voice library and the call's code
 * are loaded on the first join.
 */
export class VoiceChannels {
  readonly #options: VoiceChannelsOptions;
  readonly #calls = new Map<string, VoiceCall>();
  readonly #joining = new Map<string, Promise<VoiceCall>>();
  readonly #talkers = new LruMap<string, number>(TALKERS_KEPT);

  constructor(options: VoiceChannelsOptions) {
    this.#options = options;
  }

  /** Whether exchanges are also written in the voice channel's text chat. */
  get textChat(): boolean {
    return this.#options.config.textChat;
  }

  /** Whether a call is up or being joined (audio must not be held up by a long pause then). */
  get inCall(): boolean {
    return this.#calls.size > 0 || this.#joining.size > 0;
  }

  /** Joins `channel` (moving from another channel of its guild); resolves when the call is up. */
  async join(channel: VoiceBasedChannel): Promise<JoinOutcome> {
    const guildId = channel.guild.id;
    const current = this.#calls.get(guildId);
    if (current?.channel.id === channel.id) return 'already';
    current?.end();
    const pending = this.#joining.get(guildId) ?? this.#startCall(channel);
    this.#joining.set(guildId, pending);
    try {
      const call = await pending;
      this.#calls.set(guildId, call);
      this.#options.logger.info({ guildId, channelId: channel.id }, 'joined a voice channel');
      // Everyone may have left while the connection came up (no event reaches a call not yet made).
      this.#leaveIfAlone(guildId, call);
      return current === undefined ? 'joined' : 'moved';
    } finally {
      this.#joining.delete(guildId);
    }
  }

  /** Leaves the guild's voice channel; false when the bot was in none. */
  leave(guildId: string): boolean {
    const call = this.#calls.get(guildId);
    if (call === undefined) return false;
    call.end();
    this.#options.logger.info({ guildId, channelId: call.channel.id }, 'left a voice channel');
    return true;
  }

  status(guildId: string): VoiceStatus | undefined {
    const call = this.#calls.get(guildId);
    if (call === undefined) return undefined;
    return {
      channelId: call.channel.id,
      speaking: call.speaking,
      listeners: call.channel.members.filter((member) => !member.user.bot).size,
    };
  }

  /** A member talked with the bot (in text or voice): followed into voice with auto-join. */
  noteTalker(guildId: string, userId: string): void {
    if (this.#options.config.autoJoin) {
      this.#talkers.set(`${guildId}:${userId}`, this.#options.clock.now());
    }
  }

  /** A member's message to the bot (a mention, a reply to it): they talked with it. */
  noteMessage(message: Message): void {
    if (!this.#options.config.autoJoin || !message.inGuild() || message.author.bot) return;
    const botId = message.client.user.id;
    if (message.mentions.users.has(botId) || message.mentions.repliedUser?.id === botId) {
      this.noteTalker(message.guildId, message.author.id);
    }
  }

  /** A voice state changed in a guild: auto-join, auto-leave, a moved bot. */
  onVoiceStateUpdate(previous: VoiceState, state: VoiceState): void {
    const guildId = state.guild.id;
    const call = this.#calls.get(guildId);
    const botId = state.client.user.id;
    this.#options.logger.debug(
      { guildId, userId: state.id, from: previous.channelId, to: state.channelId },
      'voice state changed',
    );
    if (state.id === botId) {
      if (call !== undefined && state.channel !== null && state.channel.id !== call.channel.id) {
        call.followChannel(state.channel);
      }
      return;
    }
    if (call !== undefined) {
      if (previous.channelId === call.channel.id && state.channelId !== call.channel.id) {
        call.memberLeft(state.id);
        this.#leaveIfAlone(guildId, call);
      }
      return;
    }
    if (state.channel !== null && previous.channelId !== state.channelId) {
      this.#autoJoin(state.channel, state.id);
    }
  }

  /** Leaves every call (shutdown). */
  close(): void {
    for (const guildId of [...this.#calls.keys()]) this.leave(guildId);
  }

  async #startCall(channel: VoiceBasedChannel): Promise<VoiceCall> {
    const [{ loadVoiceLibrary }, { VoiceCall }] = await Promise.all([
      import('./voice-library.ts'),
      import('./voice-call.ts'),
    ]);
    const guildId = channel.guild.id;
    const { config, logger } = this.#options;
    const call = await VoiceCall.join({
      ...this.#options,
      library: await loadVoiceLibrary(),
      channel,
      textChat: config.textChat,
      silenceMs: config.silenceMs,
      logger: logger.child({ guildId, voiceChannelId: channel.id }),
      onEnded: () => {
        if (this.#calls.get(guildId) === call) this.#calls.delete(guildId);
      },
    });
    return call;
  }

  #leaveIfAlone(guildId: string, call: VoiceCall): void {
    const others = call.channel.members.filter((member) => !member.user.bot).size;
    if (others > 0) return;
    this.#options.logger.info({ guildId }, 'alone in the voice channel: leaving');
    this.leave(guildId);
  }

  #autoJoin(channel: VoiceBasedChannel, userId: string): void {
    if (!this.#options.config.autoJoin || this.#joining.has(channel.guild.id)) return;
    const talked = this.#talkers.get(`${channel.guild.id}:${userId}`);
    if (talked === undefined || this.#options.clock.now() - talked > TALKED_LATELY_MS) return;
    const me = channel.guild.members.me;
    if (me === null || !channel.permissionsFor(me).has(['Connect', 'Speak'])) return;
    void this.join(channel).catch((error: unknown) =>
      this.#options.logger.warn({ err: error, guildId: channel.guild.id }, 'could not auto-join'),
    );
  }
}
