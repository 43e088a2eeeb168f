import {
  ChannelType,
  PermissionFlagsBits,
  type Channel,
  type GuildMember,
  type Message,
} from 'discord.js';
import type { Character } from '../../core/character.ts';
import type { ScopeKind, ScopeSettings } from '../../core/settings.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import type { PersonaContext } from '../context/persona.ts';
import { DiscordMessageTarget } from '../delivery/discord-message-target.ts';
import type { MessageTarget } from '../delivery/message-target.ts';
import type { Locale } from '../i18n/locale.ts';
import type { LiveVoice } from './live-voice.ts';
import type { TriggerReason } from './trigger-detector.ts';

/** Where a turn is delivered: resolved once, at intake, from the message's own channel. */
export interface TurnPlace {
  channelId: string;
  target: MessageTarget;
  /** How the system prompt names the place (server and channel, or the DM partner). */
  persona: PersonaContext['place'];
  guildLocale: string | undefined;
  /**
   * The channel whose webhook carries characters here: the channel itself, a thread's parent
   * (a forum post's forum); undefined where no webhook can post (a DM).
   */
  webhookChannelId: string | undefined;
}

/** One of the bot's characters speaking a turn, and where its messages go (its webhook). */
export interface CharacterSpeaker {
  character: Character;
  target: MessageTarget;
}

/** A scene's course after a member's message: who else speaks, and how many turns are left. */
export interface SceneCourse {
  /** Who was on stage when the message came (a reply may turn to any of them). */
  stage: readonly Character[];
  /** Characters the message addressed who have not spoken yet, in order. */
  waiting: readonly Character[];
  /** Character turns the member's message may still take, this one included. */
  turnsLeft: number;
  /** The scene's replies so far, oldest first: the next speaker answers them too. */
  spoken: readonly InboundMessage[];
  /**
   * Characters a member's stop named ("Alice, stop"): the scene hands to them no more. One set
   * for every turn of the scene, filled by the stop (stops/), read when the next speaker is chosen.
   */
  silenced: Set<string>;
}

/**
 * What a member's message is answered with, decided once at intake and carried to the turn:
 * nothing below re-reads or re-derives it. The settings are those in effect when the message
 * was accepted (a /config change reaches the next message, not one already waiting).
 */
export interface TurnFacts {
  /** A guild, or the author in a DM (a DM's settings never reach a guild). */
  scope: { id: string; kind: ScopeKind };
  place: TurnPlace;
  /** The scope's settings with the channel's own persona and humanizer merged over them. */
  settings: ScopeSettings;
  locale: Locale;
  /**
   * The character who speaks this turn; undefined when the bot speaks as itself. Its persona,
   * model and voice are in `settings` already.
   */
  speaker?: CharacterSpeaker;
  /** Set when characters answer the message: the scene's course. */
  scene?: SceneCourse;
  /** Set when a member asked by voice in a voice channel: the reply is spoken there. */
  voice?: LiveVoice;
}

/** What an author may do where they wrote, read from Discord when the message was accepted. */
export interface MemberStanding {
  /** Their permission bits in the channel (decimal string); undefined in DMs. */
  permissions: string | undefined;
  /** May stop anyone's turn and manage others' replies (Manage Messages, or a bot owner). */
  isModerator: boolean;
}

/** A member's message the bot accepted to answer: claimed, counted, and given its facts. */
export interface AcceptedMessage {
  message: InboundMessage;
  /**
   * `scene`: the next character's turn in answer to a message already answered once; `voice`:
   * something a member said in the voice channel the bot is in.
   */
  reason: TriggerReason | 'retry' | 'scene' | 'voice';
  author: MemberStanding;
  /**
   * The id its user turn is stored under, minted at acceptance: ids are time-ordered, so the
   * member's turn always sorts before the reply's (minted later, when its turn starts).
   */
  recordId: string;
  facts: TurnFacts;
}

/** Where a message of this channel is answered; undefined when the bot cannot post there. */
export function placeOf(channel: Channel): TurnPlace | undefined {
  if (!channel.isSendable()) return undefined;
  const target = new DiscordMessageTarget(channel);
  if (channel.type === ChannelType.DM) {
    const userName = channel.recipient?.displayName ?? 'someone';
    return {
      channelId: channel.id,
      target,
      persona: { kind: 'dm', userName },
      guildLocale: undefined,
      webhookChannelId: undefined,
    };
  }
  if (!('guild' in channel)) return undefined;
  return {
    channelId: channel.id,
    target,
    persona: { kind: 'guild', guildName: channel.guild.name, channelName: channel.name },
    guildLocale: channel.guild.preferredLocale,
    webhookChannelId: channel.isThread() ? (channel.parentId ?? undefined) : channel.id,
  };
}

/**
 * The author's standing in the message's channel: an owner or Manage Messages moderates. The
 * member defaults to discord.js's cache, which keeps only the members heard last
 * (DISCORD_CACHE_MEMBERS): a caller that waited since the message arrived passes the member it
 * read then, or one fetched (`authorMember`).
 */
export function standingOf(
  message: Message,
  options: { ownerIds: readonly string[]; member?: GuildMember | null },
): MemberStanding {
  const { ownerIds } = options;
  const member = options.member === undefined ? message.member : options.member;
  const permissions = member?.permissionsIn(message.channelId);
  return {
    permissions: permissions?.bitfield.toString(),
    isModerator:
      ownerIds.includes(message.author.id) ||
      (permissions?.has(PermissionFlagsBits.ManageMessages) ?? false),
  };
}

/**
 * The message's author as a server member: from discord.js's cache (bounded: a busy server's
 * earlier authors are dropped), else fetched. Null in DMs, or when Discord cannot tell.
 */
export async function authorMember(message: Message): Promise<GuildMember | null> {
  if (message.member !== null || !message.inGuild()) return message.member;
  return message.guild.members.fetch(message.author.id).catch(() => null);
}
