import type { VoiceConnection } from '@discordjs/voice';
import type { GuildMember, VoiceBasedChannel } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import { pcmSeconds } from '../../core/speech.ts';
import { SPEECH_FRAME_BYTES, speechWav } from '../../providers/speech/voice-channel-audio.ts';
import { SpeechQueue } from '../../stream/speech/speech-queue.ts';
import type { StopRegistry } from '../../stream/stop/stop-registry.ts';
import type { LiveVoice, LiveVoiceReply } from '../intake/live-voice.ts';
import { accountSpeech, type AccountingOptions } from '../turns/turn-accounting.ts';
import { VoiceChannelSink } from './voice-channel-sink.ts';
import { watchConnection } from './voice-connection-watch.ts';
import type { VoiceIntake } from './voice-intake.ts';
import type { VoiceLibrary } from './voice-library.ts';
import { VoiceListener, type HeardUtterance } from './voice-listener.ts';
import { VoicePlayback } from './voice-playback.ts';

/** Joining gives up after this (no voice server answered, no permission to connect). */
const JOIN_TIMEOUT_MS = 20_000;

export interface VoiceCallOptions {
  library: VoiceLibrary;
  channel: VoiceBasedChannel;
  speech: SpeechService;
  intake: VoiceIntake;
  stops: StopRegistry;
  accounting: AccountingOptions;
  clock: Clock;
  logger: Logger;
  /** Post the exchange's text in the voice channel's text chat too. */
  textChat: boolean;
  silenceMs: number;
  /** The call ended on its own (the connection could not be kept): forget it. */
  onEnded(): void;
}

/**
 * The bot in one guild's voice channel: its connection (kept through network changes and
 * voice-server moves), its ears (VoiceListener: an utterance per member, transcribed and handed
 * to VoiceIntake) and its voice (VoicePlayback, fed by the reply's SpeechQueue through
 * LiveVoice). A member who talks over the bot stops it — the member being answered, or a
 * moderator, as for a stop in text.
 */
export class VoiceCall implements LiveVoice {
  readonly #options: VoiceCallOptions;
  readonly #connection: VoiceConnection;
  readonly #playback: VoicePlayback;
  readonly #listener: VoiceListener;
  readonly #unwatch: () => void;
  #channel: VoiceBasedChannel;
  #ended = false;

  private constructor(options: VoiceCallOptions, connection: VoiceConnection) {
    this.#options = options;
    this.#channel = options.channel;
    this.#connection = connection;
    const { library, logger, clock } = options;
    this.#playback = new VoicePlayback({ library, connection, logger });
    this.#listener = new VoiceListener({
      library,
      receiver: connection.receiver,
      clock,
      logger,
      timing: { silenceMs: options.silenceMs },
      isBot: (userId) => this.#member(userId)?.user.bot ?? false,
      onSpeaking: (userId) => this.#bargeIn(userId),
      onUtterance: (utterance) => void this.#heard(utterance),
    });
    this.#unwatch = watchConnection({
      library,
      connection,
      logger,
      clock,
      onLost: () => this.end(),
    });
  }

  /** Joins the channel and resolves once the call is ready (voice gateway and UDP up). */
  static async join(options: VoiceCallOptions): Promise<VoiceCall> {
    const { library, channel } = options;
    const connection = library.joinVoiceChannel({
      guildId: channel.guild.id,
      channelId: channel.id,
      adapterCreator: channel.guild.voiceAdapterCreator,
      selfDeaf: false,
      selfMute: false,
      daveEncryption: true,
    });
    connection.on('error', (error) =>
      options.logger.warn({ err: error }, 'voice connection error'),
    );
    try {
      await library.entersState(connection, library.VoiceConnectionStatus.Ready, JOIN_TIMEOUT_MS);
    } catch (error) {
      connection.destroy();
      throw error;
    }
    return new VoiceCall(options, connection);
  }

  get textChat(): boolean {
    return this.#options.textChat;
  }

  get channel(): VoiceBasedChannel {
    return this.#channel;
  }

  /** Whether a reply is being spoken. */
  get speaking(): boolean {
    return this.#playback.speaking;
  }

  /** The channel may have been moved by a moderator: the call follows it. */
  followChannel(channel: VoiceBasedChannel): void {
    this.#channel = channel;
  }

  speak(reply: LiveVoiceReply): VoiceChannelSink {
    const { speech, logger } = this.#options;
    const voice = reply.voice ?? speech.defaultVoice;
    const queue = new SpeechQueue({
      synthesize: (text, signal) =>
        speech.textToSpeech.synthesize({ text, model: speech.speechModel, voice }, signal),
      frameBytes: SPEECH_FRAME_BYTES,
      signal: reply.signal,
      onError: (error) => reply.logger.warn({ err: error }, 'could not speak the reply'),
    });
    if (this.#ended) {
      // The bot left the call while this turn waited: the reply is text only (if any).
      queue.cancel();
      return new VoiceChannelSink({
        text: reply.text,
        queue,
        played: Promise.resolve(),
        spoken: reply.spoken,
      });
    }
    const started = this.#options.clock.now();
    const played = this.#playback.play(queue, () =>
      reply.logger.debug({ afterMs: this.#options.clock.now() - started }, 'reply audio began'),
    );
    // A stop (the turn's signal) silences the bot at once, whatever the model does next.
    const onStop = (): void => this.#playback.stop();
    reply.signal.addEventListener('abort', onStop, { once: true });
    void played.finally(() => reply.signal.removeEventListener('abort', onStop));
    logger.debug({ turnId: reply.turnId }, 'speaking a reply');
    return new VoiceChannelSink({ text: reply.text, queue, played, spoken: reply.spoken });
  }

  /** A member left the channel: they are no longer listened to. */
  memberLeft(userId: string): void {
    this.#listener.forget(userId);
  }

  /** Leaves the channel; idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#unwatch();
    this.#listener.close();
    this.#playback.stop();
    if (this.#connection.state.status !== this.#options.library.VoiceConnectionStatus.Destroyed) {
      this.#connection.destroy();
    }
    this.#options.onEnded();
  }

  #member(userId: string): GuildMember | undefined {
    return this.#channel.guild.members.cache.get(userId);
  }

  /** Talking over the bot: the reply stops if this member may stop it. */
  #bargeIn(userId: string): void {
    if (!this.#playback.speaking) return;
    const member = this.#member(userId);
    const decision = this.#options.stops.stopByCommand({
      channelId: this.#channel.id,
      authorId: userId,
      authorIsModerator:
        member !== undefined && this.#options.intake.standing(member, this.#channel).isModerator,
    });
    if (!decision.stopped) return;
    this.#playback.stop();
    this.#options.logger.info(
      { userId, turnId: decision.turnId },
      'a member talked over the bot: stopped',
    );
  }

  /** An utterance: transcribed, counted, and taken in like a message. */
  async #heard(utterance: HeardUtterance): Promise<void> {
    const { speech, logger, intake } = this.#options;
    const member = this.#member(utterance.userId) ?? (await this.#fetchMember(utterance.userId));
    if (member === undefined || member.user.bot) return;
    try {
      const seconds = pcmSeconds(utterance.speech.byteLength);
      const transcript = await speech.speechToText.transcribe(
        {
          audio: speechWav(utterance.speech),
          filename: 'utterance.wav',
          mediaType: 'audio/wav',
          model: speech.transcriptionModel,
        },
        AbortSignal.timeout(60_000),
      );
      // Counted beside the turn, not before it: a usage write is not on the way to the answer.
      void this.#countHeard(member, seconds).catch((error: unknown) =>
        logger.warn({ err: error }, 'could not count the seconds heard'),
      );
      const text = transcript.text.trim();
      logger.info(
        { userId: member.id, seconds: Math.round(seconds * 10) / 10, characters: text.length },
        'heard in the voice channel',
      );
      if (text === '') return;
      await intake.hear(
        { channel: this.#channel, member, transcript: text, spokeAt: utterance.end.lastVoiceAt },
        this,
      );
    } catch (error) {
      logger.warn(
        { err: error, userId: member.id },
        'could not hear a member in the voice channel',
      );
    }
  }

  async #countHeard(member: GuildMember, seconds: number): Promise<void> {
    const { speech, accounting, intake } = this.#options;
    await intake.scopeReady(this.#channel.guild.id);
    await accountSpeech(accounting, {
      scopeId: this.#channel.guild.id,
      memberId: member.id,
      model: speech.transcriptionModel,
      seconds,
      cost: speech.transcriptionCost(seconds),
    });
  }

  #fetchMember(userId: string): Promise<GuildMember | undefined> {
    return this.#channel.guild.members.fetch(userId).catch(() => undefined);
  }
}
