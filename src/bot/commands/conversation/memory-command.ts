import {
  EmbedBuilder,
  InteractionContextType,
  SlashCommandBuilder,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
  type SlashCommandStringOption,
} from 'discord.js';
import { findCharacter, listCharacters } from '../../../db/character-repository.ts';
import {
  addMemory,
  deleteMemory,
  findMemory,
  listCharacterMemories,
  listMemories,
  type CharacterMemory,
  type Memory,
  type MemoryOwner,
} from '../../../db/memory-repository.ts';
import { summaryOf } from '../../../db/summary-repository.ts';
import { MEMORY_LIMITS, type MemoryLimits } from '../../../tools/builtin/memory-tools.ts';
import { holdsPermission, requirePermission } from '../command-access.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import { commandText } from '../command-text.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

type MemoryScope = 'server' | 'personal';

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;
const MAX_CHOICES = 25;
const CHOICE_NAME_LIMIT = 100;
/** Discord's limit for an embed description. */
const DESCRIPTION_LIMIT = 4_096;

/** `/memory`'s texts, en and ja side by side. */
const text = commandText({
  en: {
    description: 'What I remember about this server and about you',
    list: 'Show the memories you can see',
    add: 'Teach me a fact',
    forget: 'Make me forget one memory',
    scope: 'Whose memory',
    server: 'This server (shared with everyone here)',
    personal: 'Personal (about you, only yours)',
    fact: 'The fact, one sentence',
    memory: 'The memory to forget',
    serverTitle: 'Server memories ({count}/{limit})',
    personalTitle: 'Your memories ({count}/{limit})',
    none: '(none)',
    added: 'Remembered ({kind}): {fact}',
    duplicate: 'I already remember that ({kind}): {fact}',
    full: 'Not saved: {kind} memories are full ({limit}). Forget one first with `/memory forget`.',
    forgotten: 'Forgotten: {fact}',
    emptyFact: 'There is nothing to remember in that: write the fact in words.',
    notFound: 'I have no memory like that which you can make me forget.',
    dmServer: 'In DMs there is no server to share memories with: use the personal scope.',
    forgetServerRefused:
      'Only the member who taught this server memory or a member with **Manage Server** can make me forget it.',
    kindServer: 'server',
    kindPersonal: 'personal',
    character: 'Only what this character remembers (about you; about everyone with Manage Server)',
    charactersTitle: 'What the characters remember about you',
    characterTitle: 'What {name} remembers about you ({count}/{limit} each)',
    characterAllTitle: 'What {name} remembers about members',
    noCharacter: 'There is no character named **{name}** here.',
    summary: 'Show my rolling summary of this channel’s older conversation',
    summaryTitle: 'What I keep of this channel’s older conversation',
    summaryCovers: 'Covers {turns} turns; updated',
    summaryNone:
      'There is no summary of this channel yet: I write one once older turns no longer fit in what I read.',
  },
  ja: {
    description: 'このサーバーとあなたについて覚えていること',
    list: '見られる記憶を表示',
    add: '事実を覚えさせる',
    forget: '記憶をひとつ忘れさせる',
    scope: '誰の記憶か',
    server: 'このサーバー（ここにいる全員と共有）',
    personal: '個人（あなたについて、あなただけのもの）',
    fact: '覚えてほしい事実（一文で）',
    memory: '忘れさせる記憶',
    serverTitle: 'サーバーの記憶（{count}/{limit}）',
    personalTitle: 'あなたの記憶（{count}/{limit}）',
    none: '（なし）',
    added: '覚えました（{kind}）：{fact}',
    duplicate: 'すでに覚えています（{kind}）：{fact}',
    full: '保存できません：{kind}の記憶がいっぱいです（{limit}件）。先に `/memory forget` で忘れさせてください。',
    forgotten: '忘れました：{fact}',
    emptyFact: '覚えることがありません：事実を言葉で書いてください。',
    notFound: 'あなたが忘れさせられる、そのような記憶はありません。',
    dmServer: 'DMには記憶を共有するサーバーがありません。個人を選んでください。',
    forgetServerRefused:
      'このサーバーの記憶を忘れさせられるのは、それを教えたメンバーか **サーバー管理** 権限を持つメンバーだけです。',
    kindServer: 'サーバー',
    kindPersonal: '個人',
    character:
      'このキャラクターが覚えていることだけ（あなたについて。サーバー管理があれば全員について）',
    charactersTitle: 'キャラクターたちがあなたについて覚えていること',
    characterTitle: '{name}があなたについて覚えていること（各{count}/{limit}）',
    characterAllTitle: '{name}がメンバーについて覚えていること',
    noCharacter: 'ここには **{name}** という名前のキャラクターはいません。',
    summary: 'このチャンネルの古い会話の要約を表示',
    summaryTitle: 'このチャンネルの古い会話について覚えていること',
    summaryCovers: '{turns}件のやりとりを要約。更新',
    summaryNone:
      'このチャンネルの要約はまだありません。古いやりとりが読みきれなくなったら書きます。',
  },
});

/**
 * `/memory list|add|forget`, each with an optional `scope` (server | personal), and `/memory
 * summary` (the channel's rolling summary).
 */
function memoryDefinition(maxFactChars: number): RESTPostAPIChatInputApplicationCommandsJSONBody {
  const scopeOption = (option: SlashCommandStringOption) =>
    text
      .describe(option.setName('scope'), 'scope')
      .addChoices(text.choice('server', 'server'), text.choice('personal', 'personal'));
  const characterOption = (option: SlashCommandStringOption) =>
    text.describe(option.setName('character'), 'character').setAutocomplete(true);
  const builder = new SlashCommandBuilder()
    .setName('memory')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM)
    .addSubcommand((list) =>
      text
        .describe(list.setName('list'), 'list')
        .addStringOption(scopeOption)
        .addStringOption(characterOption),
    )
    .addSubcommand((add) =>
      text
        .describe(add.setName('add'), 'add')
        .addStringOption((fact) =>
          text.describe(
            fact.setName('fact').setRequired(true).setMinLength(1).setMaxLength(maxFactChars),
            'fact',
          ),
        )
        .addStringOption(scopeOption),
    )
    .addSubcommand((forget) =>
      text
        .describe(forget.setName('forget'), 'forget')
        .addStringOption((memory) =>
          text.describe(memory.setName('memory').setRequired(true).setAutocomplete(true), 'memory'),
        )
        .addStringOption(scopeOption)
        .addStringOption(characterOption),
    )
    .addSubcommand((summary) => text.describe(summary.setName('summary'), 'summary'));
  return text.describe(builder, 'description').toJSON();
}

/**
 * `/memory list | add | forget`, the same memories the model's memory tools use, and
 * `/memory summary`, the channel's rolling summary.
 * - Personal memories are always the caller's own (owner = caller): listed, added and forgotten
 *   only by them.
 * - Server memories: everyone here may list them (the bot uses them in every member's replies
 *   anyway); adding needs Manage Server; forgetting needs Manage Server or having taught it
 *   (the memory tools' rule). DMs have personal memories only.
 * - What each character learned about a member (its own memories): the member sees and forgets
 *   those about themselves; Manage Server sees and forgets any (`character` picks one).
 */
export function memoryCommand(options: { limits?: Partial<MemoryLimits> } = {}): SlashCommand {
  const limits = { ...MEMORY_LIMITS, ...options.limits };
  const subcommands = new MemorySubcommands(limits);
  return {
    definition: memoryDefinition(limits.maxFactChars),
    category: 'conversation',
    async execute(interaction, context) {
      const subcommand = interaction.options.getSubcommand(true);
      if (subcommand === 'add') await subcommands.add(interaction, context);
      else if (subcommand === 'forget') await subcommands.forget(interaction, context);
      else if (subcommand === 'summary') await showChannelSummary(interaction, context);
      else await subcommands.list(interaction, context);
    },
    async autocomplete(interaction, context) {
      const focused = interaction.options.getFocused(true);
      const typed = String(focused.value).toLowerCase();
      if (focused.name === 'character') {
        const characters = await listCharacters(context.services.db, context.scope.id);
        await interaction.respond(
          characters
            .filter((character) => character.name.toLowerCase().includes(typed))
            .slice(0, MAX_CHOICES)
            .map((character) => ({ name: character.name, value: character.name })),
        );
        return;
      }
      const choices = (await forgettable(interaction, context))
        .filter(({ memory }) => memory.content.toLowerCase().includes(typed))
        .slice(0, MAX_CHOICES)
        .map(({ memory, icon }) => ({
          name: fit(`${icon} ${memory.content}`, CHOICE_NAME_LIMIT),
          value: memory.id,
        }));
      await interaction.respond(choices);
    },
  };
}

/** `/memory list`, `add` and `forget`, under the limits the memory tools use too. */
class MemorySubcommands {
  private readonly limits: MemoryLimits;

  constructor(limits: MemoryLimits) {
    this.limits = limits;
  }

  async list(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void> {
    const scope = chosenScope(interaction, context);
    const characterName = interaction.options.getString('character') ?? undefined;
    await deferIfSlow(interaction);
    if (characterName !== undefined) {
      await this.listOneCharacter(interaction, context, characterName);
      return;
    }
    const owners: MemoryOwner[] = [];
    if (scope !== 'personal' && context.scope.kind === 'guild') owners.push({ kind: 'server' });
    if (scope !== 'server') owners.push({ kind: 'user', ownerId: interaction.user.id });
    const sections: string[] = [];
    for (const owner of owners) {
      const memories = await listMemories(context.services.db, context.scope.id, owner);
      const title = owner.kind === 'server' ? 'serverTitle' : 'personalTitle';
      const heading = text.get(context.locale, title, {
        count: memories.length,
        limit: this.limitOf(owner),
      });
      sections.push(`**${heading}**\n${bulletList(memories, context)}`);
    }
    if (scope !== 'server') {
      const held = await listCharacterMemories(context.services.db, {
        scopeId: context.scope.id,
        ownerId: interaction.user.id,
      });
      if (held.length > 0) {
        const heading = text.get(context.locale, 'charactersTitle');
        sections.push(`**${heading}**\n${characterBullets(held)}`);
      }
    }
    const embed = new EmbedBuilder().setDescription(fit(sections.join('\n\n'), 4_000));
    await respond(interaction, { embeds: [embed] });
  }

  /** One character's memories: about the caller, or (Manage Server) about every member. */
  private async listOneCharacter(
    interaction: ChatInputCommandInteraction,
    context: CommandContext,
    name: string,
  ): Promise<void> {
    const { db } = context.services;
    const character = await findCharacter(db, context.scope.id, name);
    if (character === undefined) throw new CommandRefusal(text.refusal('noCharacter', { name }));
    const everyone = holdsPermission(interaction, context, 'ManageGuild');
    const held = await listCharacterMemories(db, {
      scopeId: context.scope.id,
      characterId: character.id,
      ...(everyone ? {} : { ownerId: interaction.user.id }),
    });
    const heading = everyone
      ? text.get(context.locale, 'characterAllTitle', { name: character.name })
      : text.get(context.locale, 'characterTitle', {
          name: character.name,
          count: held.length,
          limit: this.limits.personalMemoriesPerMember,
        });
    const body = everyone ? memberBullets(held, context) : bulletList(held, context);
    const embed = new EmbedBuilder().setDescription(fit(`**${heading}**\n${body}`, 4_000));
    await respond(interaction, { embeds: [embed] });
  }

  async add(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void> {
    const scope = chosenScope(interaction, context) ?? 'personal';
    if (scope === 'server') requirePermission(interaction, context, 'ManageGuild');
    // One line, like the memory tools store it: a fact cannot fake structure in a later prompt.
    const fact = interaction.options.getString('fact', true).replace(/\s+/g, ' ').trim();
    if (fact === '') throw new CommandRefusal(text.refusal('emptyFact'));
    await deferIfSlow(interaction);
    const owner = ownerOf(scope, interaction.user.id);
    const result = await addMemory(context.services.db, {
      scope: context.scope,
      owner,
      authorId: interaction.user.id,
      content: fact,
      limit: this.limitOf(owner),
    });
    const kind = text.get(context.locale, scope === 'server' ? 'kindServer' : 'kindPersonal');
    const reply =
      result.status === 'full'
        ? text.get(context.locale, 'full', { kind, limit: result.limit })
        : text.get(context.locale, result.status, { kind, fact: result.memory.content });
    await respond(interaction, reply);
  }

  async forget(interaction: ChatInputCommandInteraction, context: CommandContext): Promise<void> {
    const scope = chosenScope(interaction, context);
    const id = interaction.options.getString('memory', true);
    if (!UUID.test(id)) throw new CommandRefusal(text.refusal('notFound'));
    await deferIfSlow(interaction);
    const { db } = context.services;
    const owners: MemoryOwner[] = [];
    if (scope !== 'server') owners.push(ownerOf('personal', interaction.user.id));
    if (scope !== 'personal' && context.scope.kind === 'guild') owners.push({ kind: 'server' });
    if (scope !== 'server') {
      const held = await characterMemoriesOf(interaction, context);
      const own = held.find((memory) => memory.id === id);
      if (own !== undefined) owners.push(characterOwner(own));
    }
    for (const owner of owners) {
      const memory = await findMemory(db, { scopeId: context.scope.id, owner, id });
      if (memory === undefined) continue;
      if (owner.kind === 'server' && !mayForgetServerMemory(memory, interaction, context))
        throw new CommandRefusal(text.refusal('forgetServerRefused'));
      await deleteMemory(db, { scopeId: context.scope.id, owner, id });
      await respond(interaction, text.get(context.locale, 'forgotten', { fact: memory.content }));
      return;
    }
    throw new CommandRefusal(text.refusal('notFound'));
  }

  private limitOf(owner: MemoryOwner): number {
    return owner.kind === 'server'
      ? this.limits.serverMemoriesPerScope
      : this.limits.personalMemoriesPerMember;
  }
}

/**
 * `/memory summary`: the channel's rolling summary as the model receives it, with how
 * many turns it covers. Whoever can use the command here can read the channel it summarises.
 */
async function showChannelSummary(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<void> {
  await deferIfSlow(interaction);
  const summary = await summaryOf(context.services.db, interaction.channelId);
  if (summary === undefined) {
    await respond(interaction, text.get(context.locale, 'summaryNone'));
    return;
  }
  const content =
    summary.content.length <= DESCRIPTION_LIMIT
      ? summary.content
      : `${summary.content.slice(0, DESCRIPTION_LIMIT - 1)}…`;
  const embed = new EmbedBuilder()
    .setTitle(text.get(context.locale, 'summaryTitle'))
    .setDescription(content)
    .setFooter({
      text: text.get(context.locale, 'summaryCovers', { turns: summary.coveredTurns }),
    })
    .setTimestamp(summary.updatedAt);
  await respond(interaction, { embeds: [embed] });
}

/** The memories the caller may make the bot forget: their own, and server ones they may. */
async function forgettable(
  interaction: AutocompleteInteraction,
  context: CommandContext,
): Promise<Array<{ memory: Memory; icon: string }>> {
  const scope = interaction.options.getString('scope') as MemoryScope | null;
  const { db } = context.services;
  const found: Array<{ memory: Memory; icon: string }> = [];
  if (scope !== 'server') {
    const own = await listMemories(db, context.scope.id, ownerOf('personal', interaction.user.id));
    found.push(...own.map((memory) => ({ memory, icon: '👤' })));
  }
  if (scope !== 'personal' && context.scope.kind === 'guild') {
    const shared = await listMemories(db, context.scope.id, { kind: 'server' });
    found.push(
      ...shared
        .filter((memory) => mayForgetServerMemory(memory, interaction, context))
        .map((memory) => ({ memory, icon: '🏠' })),
    );
  }
  if (scope !== 'server') {
    const held = await characterMemoriesOf(interaction, context);
    found.push(...held.map((memory) => ({ memory, icon: `🎭 ${memory.characterName}:` })));
  }
  return found;
}

/**
 * The character memories the caller may see and forget: those about themselves, or with
 * Manage Server any — of the character the `character` option names, or of every character.
 */
async function characterMemoriesOf(
  interaction: ChatInputCommandInteraction | AutocompleteInteraction,
  context: CommandContext,
): Promise<CharacterMemory[]> {
  const { db } = context.services;
  const name = interaction.options.getString('character') ?? undefined;
  const character =
    name === undefined ? undefined : await findCharacter(db, context.scope.id, name);
  if (name !== undefined && character === undefined) return [];
  const everyone = holdsPermission(interaction, context, 'ManageGuild');
  return listCharacterMemories(db, {
    scopeId: context.scope.id,
    ...(character === undefined ? {} : { characterId: character.id }),
    ...(everyone ? {} : { ownerId: interaction.user.id }),
  });
}

function characterOwner(memory: CharacterMemory): MemoryOwner {
  return { kind: 'user', ownerId: memory.ownerId ?? '', characterId: memory.characterId };
}

function chosenScope(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): MemoryScope | undefined {
  const scope = (interaction.options.getString('scope') as MemoryScope | null) ?? undefined;
  if (scope === 'server' && context.scope.kind === 'dm')
    throw new CommandRefusal(text.refusal('dmServer'));
  return scope;
}

function ownerOf(scope: MemoryScope, callerId: string): MemoryOwner {
  return scope === 'server' ? { kind: 'server' } : { kind: 'user', ownerId: callerId };
}

function mayForgetServerMemory(
  memory: Memory,
  interaction: ChatInputCommandInteraction | AutocompleteInteraction,
  context: CommandContext,
): boolean {
  return (
    memory.authorId === interaction.user.id || holdsPermission(interaction, context, 'ManageGuild')
  );
}

function bulletList(memories: readonly Memory[], context: CommandContext): string {
  if (memories.length === 0) return text.get(context.locale, 'none');
  return memories.map((memory) => `• ${fit(memory.content, 200)}`).join('\n');
}

/** Each memory under its character's name. */
function characterBullets(memories: readonly CharacterMemory[]): string {
  return memories
    .map((memory) => `• **${memory.characterName}**: ${fit(memory.content, 200)}`)
    .join('\n');
}

/** One character's memories, each with the member it is about. */
function memberBullets(memories: readonly CharacterMemory[], context: CommandContext): string {
  if (memories.length === 0) return text.get(context.locale, 'none');
  return memories
    .map((memory) => `• <@${memory.ownerId ?? ''}>: ${fit(memory.content, 200)}`)
    .join('\n');
}

/** Cuts at a line (or character) boundary with an ellipsis so Discord's limit is never hit. */
function fit(value: string, limit: number): string {
  const characters = [...value];
  if (characters.length <= limit) return value;
  const cut = characters.slice(0, limit - 1).join('');
  const lastLine = cut.lastIndexOf('\n');
  return `${lastLine > limit / 2 ? cut.slice(0, lastLine) : cut}…`;
}
