/**
 * The big bot's world for bench/bounded.bench.ts, built inside the loopback world process: many
 * servers of many channels, and member chatter that never addresses the bot, sent at a steady
 * rate (Discord's gateway delivers a busy shard's messages this way).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { FakeDiscord } from '../../tests/fake-discord/fake-discord.ts';
import type { AmbientRound, BenchChannel, BigWorldSetup } from './loopback-protocol.ts';

/** Messages go out in slices this often: a steady stream, not one burst per second. */
const SLICE_MS = 10;

interface ActiveChannel {
  channelId: string;
  /** The members of the channel's server, who take turns talking in it. */
  memberIds: string[];
}

export interface BigWorld {
  active: ActiveChannel[];
  /** One member per active channel, who mentions the bot when a round asks. */
  channels: BenchChannel[];
}

/** Builds the servers, channels and members (before the bot connects: all come in GUILD_CREATE). */
export function buildBigWorld(discord: FakeDiscord, setup: BigWorldSetup): BigWorld {
  const activeGuilds = Math.ceil(setup.activeChannels / setup.channelsPerGuild);
  const membersPerGuild = Math.max(1, Math.floor(setup.members / activeGuilds));
  const active: ActiveChannel[] = [];
  for (let index = 0; index < setup.guilds; index += 1) {
    const guildId = discord.createGuild({ name: `Server ${index}` }).id;
    const channelIds = Array.from(
      { length: setup.channelsPerGuild },
      (_, channel) => discord.createChannel({ guildId, name: `chat-${channel}` }).id,
    );
    if (index >= activeGuilds) continue;
    const memberIds = Array.from({ length: membersPerGuild }, (_, member) => {
      const user = discord.createUser({ username: `m${index}-${member}` });
      discord.addMember({ guildId, userId: user.id });
      return user.id;
    });
    for (const channelId of channelIds) {
      if (active.length < setup.activeChannels) active.push({ channelId, memberIds });
    }
  }
  // The bot is mentioned by each channel's first member.
  const channels = active.map(({ channelId, memberIds }) => {
    const memberId = memberIds[0] ?? '';
    return { channelId, memberId, memberIds: [memberId] };
  });
  return { active, channels };
}

/**
 * Sends `messages` member messages at `perSecond`, round-robin over the channels and, within a
 * channel's server, over its members; none mentions or replies to the bot.
 */
export async function sendAmbient(
  discord: FakeDiscord,
  world: BigWorld,
  round: AmbientRound,
): Promise<{ sent: number; seconds: number }> {
  const startedAt = performance.now();
  let sent = 0;
  while (sent < round.messages) {
    const due = Math.min(
      round.messages,
      Math.floor(((performance.now() - startedAt) / 1000) * round.perSecond) + 1,
    );
    for (; sent < due; sent += 1) {
      const channel = world.active[sent % world.active.length];
      if (channel === undefined) throw new Error('no active channels');
      const turn = Math.floor(sent / world.active.length);
      const authorId = channel.memberIds[turn % channel.memberIds.length] ?? '';
      discord.postMessage({
        authorId,
        channelId: channel.channelId,
        content: `ambient chatter number ${sent}: nothing for the bot here, just talk.`,
      });
    }
    await delay(SLICE_MS);
  }
  return { sent, seconds: (performance.now() - startedAt) / 1000 };
}
