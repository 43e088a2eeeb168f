import { dispatchInChannel } from '../gateway/channel-dispatch.ts';
import { memberPayload } from '../payloads/user-payloads.ts';
import type { FakeDiscordContext } from './fake-discord-context.ts';

/** A typing indicator that is showing right now. */
export interface ActiveTyping {
  userId: string;
  expiresAt: number;
}

/**
 * Typing indicators: each start lasts `typingDurationMs` (Discord: 10 s) unless renewed, and
 * ends early when the typist posts. Starts are dispatched as TYPING_START.
 */
export class TypingService {
  readonly #context: FakeDiscordContext;

  constructor(context: FakeDiscordContext) {
    this.#context = context;
  }

  start(channelId: string, userId: string): void {
    const { world, options } = this.#context;
    const channel = world.channel(channelId);
    const now = world.clock.now();
    let typists = world.typing.get(channelId);
    if (typists === undefined) {
      typists = new Map();
      world.typing.set(channelId, typists);
    }
    typists.set(userId, now + options.typingDurationMs);
    this.#context.hub.emit({ type: 'typing', channelId, userId });
    const member = channel.guildId === null ? undefined : world.member(channel.guildId, userId);
    dispatchInChannel(this.#context, {
      type: 'TYPING_START',
      channel,
      build: () => ({
        channel_id: channelId,
        user_id: userId,
        timestamp: Math.floor(now / 1000),
        ...(channel.guildId === null ? {} : { guild_id: channel.guildId }),
        ...(member === undefined ? {} : { member: memberPayload(member, world.user(userId)) }),
      }),
    });
  }

  /** Who is shown as typing in the channel now. */
  active(channelId: string): ActiveTyping[] {
    const now = this.#context.world.clock.now();
    const typists = this.#context.world.typing.get(channelId) ?? new Map<string, number>();
    return [...typists.entries()]
      .filter(([, expiresAt]) => expiresAt > now)
      .map(([userId, expiresAt]) => ({ userId, expiresAt }));
  }
}
