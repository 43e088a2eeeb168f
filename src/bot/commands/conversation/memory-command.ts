import {
  EmbedBuilder,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import {
  addMemory,
  deleteMemory,
  findMemory,
  listMemories,
  type Memory,
  type MemoryOwner,
} from '../../../db/memory-repository.ts';
import { MEMORY_LIMITS, type MemoryLimits } from '../../../tools/builtin/memory-tools.ts';
import { holdsPermission, requirePermission } from '../command-access.ts';
import { CommandRefusal, deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import { memoryDefinition } from './memory-definition.ts';
import { showChannelSummary } from './memory-summary.ts';
import { memoryText as text } from './memory-texts.ts';

type MemoryScope = 'server' | 'personal';

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;
const MAX_CHOICES = 25;
const CHOICE_NAME_LIMIT = 100;

/**
 * `/memory list | add | forget`, the same memories the model's memory tools use, and
 * `/memory summary`, the channel's rolling summary (memory-summary.ts).
 * - Personal memories are always the caller's own (owner = caller): listed, added and forgotten
 *   only by them.
 * - Server memories: everyone here may list them (the bot uses them in every member's replies
 *   anyway); adding needs Manage Server; forgetting needs Manage Server or having taught it
 *   (the memory tools' rule). DMs have personal memories only.
 */
export function memoryCommand(options: { limits?: Partial<MemoryLimits> } = {}): SlashCommand {
  const limits = { ...MEMORY_LIMITS, ...options.limits };
  const limitOf = (owner: MemoryOwner) =>
    owner.kind === 'server' ? limits.serverMemoriesPerScope : limits.personalMemoriesPerMember;

  async function list(interaction: ChatInputCommandInteraction, context: CommandContext) {
    const scope = chosenScope(interaction, context);
    await deferIfSlow(interaction);
    const owners: MemoryOwner[] = [];
    if (scope !== 'personal' && context.scope.kind === 'guild') owners.push({ kind: 'server' });
    if (scope !== 'server') owners.push({ kind: 'user', ownerId: interaction.user.id });
    const sections: string[] = [];
    for (const owner of owners) {
      const memories = await listMemories(context.services.db, context.scope.id, owner);
      const title = owner.kind === 'server' ? 'serverTitle' : 'personalTitle';
      const heading = text.get(context.locale, title, {
        count: memories.length,
        limit: limitOf(owner),
      });
      sections.push(`**${heading}**\n${bulletList(memories, context)}`);
    }
    const embed = new EmbedBuilder().setDescription(fit(sections.join('\n\n'), 4_000));
    await respond(interaction, { embeds: [embed] });
  }

  async function add(interaction: ChatInputCommandInteraction, context: CommandContext) {
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
      limit: limitOf(owner),
    });
    const kind = text.get(context.locale, scope === 'server' ? 'kindServer' : 'kindPersonal');
    const reply =
      result.status === 'full'
        ? text.get(context.locale, 'full', { kind, limit: result.limit })
        : text.get(context.locale, result.status, { kind, fact: result.memory.content });
    await respond(interaction, reply);
  }

  async function forget(interaction: ChatInputCommandInteraction, context: CommandContext) {
    const scope = chosenScope(interaction, context);
    const id = interaction.options.getString('memory', true);
    if (!UUID.test(id)) throw new CommandRefusal(text.refusal('notFound'));
    await deferIfSlow(interaction);
    const { db } = context.services;
    const owners: MemoryOwner[] = [];
    if (scope !== 'server') owners.push(ownerOf('personal', interaction.user.id));
    if (scope !== 'personal' && context.scope.kind === 'guild') owners.push({ kind: 'server' });
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

  return {
    definition: memoryDefinition(limits.maxFactChars),
    category: 'conversation',
    async execute(interaction, context) {
      const subcommand = interaction.options.getSubcommand(true);
      if (subcommand === 'add') await add(interaction, context);
      else if (subcommand === 'forget') await forget(interaction, context);
      else if (subcommand === 'summary') await showChannelSummary(interaction, context);
      else await list(interaction, context);
    },
    async autocomplete(interaction, context) {
      const typed = String(interaction.options.getFocused()).toLowerCase();
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
  return found;
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

/** Cuts at a line (or character) boundary with an ellipsis so Discord's limit is never hit. */
function fit(value: string, limit: number): string {
  const characters = [...value];
  if (characters.length <= limit) return value;
  const cut = characters.slice(0, limit - 1).join('');
  const lastLine = cut.lastIndexOf('\n');
  return `${lastLine > limit / 2 ? cut.slice(0, lastLine) : cut}…`;
}
