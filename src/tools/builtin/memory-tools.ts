import { z } from 'zod';
import { ToolError } from '../../core/errors.ts';
import type { ToolContext } from '../../core/tool.ts';
import type { Database } from '../../db/database.ts';
import {
  addMemory,
  countMemories,
  deleteMemory,
  findMemory,
  listMemories,
  type Memory,
  type MemoryOwner,
} from '../../db/memory-repository.ts';
import { holdsPermissions } from '../tool-availability.ts';
import { defineTool, type ToolDefinition } from '../tool-definition.ts';
import { actingMember, MEMBER_ARGUMENT_DESCRIPTION } from './acting-member.ts';
import { scopeOfContext } from './context-scope.ts';

export interface MemoryLimits {
  /** Shared memories per server. */
  serverMemoriesPerScope: number;
  /** Personal memories per member per scope (a DM is its own scope). */
  personalMemoriesPerMember: number;
  /** Longest fact, in characters. */
  maxFactChars: number;
}

export const MEMORY_LIMITS: MemoryLimits = {
  serverMemoriesPerScope: 50,
  personalMemoriesPerMember: 20,
  maxFactChars: 500,
};

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

/** Discord's Manage Server bit: lets a member make the bot forget any server memory. */
const MANAGE_GUILD = 1n << 5n;

const memberField = z.string().max(100).optional().describe(MEMBER_ARGUMENT_DESCRIPTION);

const scopeField = z
  .enum(['server', 'user'])
  .describe(
    '"user": about the person you are answering (only them). "server": shared with everyone in this server (not in DMs).',
  );

/**
 * remember_fact, forget_fact and list_memories. A personal memory is ALWAYS about a member whose
 * message is being answered (with several in a coalesced batch, the model names which one; any
 * other name is refused), so text in a message cannot make the bot write into the profile of
 * someone who did not ask. Memories live in the scope they were made in: a DM's
 * never reach a guild, one guild's never reach another. In a DM the scope "server" is refused
 * (there is no server to share with) rather than quietly stored as something else. When one of
 * the bot's characters speaks (`context.character`), a personal fact it learns is its own:
 * stored under it, seen only in its turns; it still sees (and may forget) the bot's.
 */
export function createMemoryTools(options: {
  db: Database;
  limits?: Partial<MemoryLimits> | undefined;
}): ToolDefinition[] {
  const store: MemoryStore = { db: options.db, limits: { ...MEMORY_LIMITS, ...options.limits } };
  return [rememberFactTool(store), forgetFactTool(store), listMemoriesTool(store)];
}

/** Where the tools keep memories, and how many each owner may have. */
interface MemoryStore {
  db: Database;
  limits: MemoryLimits;
}

function limitOf(limits: MemoryLimits, owner: MemoryOwner): number {
  return owner.kind === 'server' ? limits.serverMemoriesPerScope : limits.personalMemoriesPerMember;
}

function rememberFactTool({ db, limits }: MemoryStore): ToolDefinition {
  return defineTool({
    name: 'remember_fact',
    description:
      'Remember a fact for future conversations. Use scope "user" for something about the person you are answering (you cannot store facts about anyone else) and "server" for something about this server.',
    input: z.strictObject({
      scope: scopeField,
      fact: z.string().trim().min(1).max(limits.maxFactChars).describe('The fact, one sentence.'),
      member: memberField,
    }),
    availability: { enabledByDefault: true },
    async execute(input, { context }) {
      const member = actingMember(context, input.member);
      const [owner = { kind: 'server' }] = ownersFor(input.scope, context, member.id);
      const result = await addMemory(db, {
        scope: scopeOfContext(context),
        owner,
        authorId: member.id,
        content: oneLine(input.fact),
        limit: limitOf(limits, owner),
      });
      const label = labelOf(owner, context);
      switch (result.status) {
        case 'added': {
          const used = await countMemories(db, context.scopeId, owner);
          return `Remembered as a ${label} (${used}/${limitOf(limits, owner)} used): ${result.memory.content}`;
        }
        case 'duplicate':
          return `Already remembered as a ${label}: ${result.memory.content}`;
        case 'full':
          throw new ToolError(
            'memory_full',
            `Not saved: ${owner.kind === 'server' ? 'this server' : 'the person you are answering'} already has ${result.limit} memories, the most allowed. Ask whether to forget an old one (list_memories, then forget_fact).`,
          );
      }
    },
  });
}

function forgetFactTool({ db }: MemoryStore): ToolDefinition {
  return defineTool({
    name: 'forget_fact',
    description:
      'Forget one remembered fact by its id (from list_memories). Personal facts can only be forgotten for the person you are answering.',
    input: z.strictObject({
      scope: scopeField,
      memoryId: z
        .string()
        // A refinement, not z.uuid(): its long pattern would reach every vendor's schema.
        .refine((value) => UUID.test(value), 'must be a memory id from list_memories')
        .describe('The id shown by list_memories.'),
      member: memberField,
    }),
    availability: { enabledByDefault: true },
    async execute(input, { context }) {
      const member = actingMember(context, input.member);
      const owners = ownersFor(input.scope, context, member.id);
      const found = await findOwned(db, { scopeId: context.scopeId, owners, id: input.memoryId });
      if (found === undefined) {
        const [first = { kind: 'server' }] = owners;
        throw new ToolError(
          'memory_not_found',
          `There is no ${labelOf(first, context)} with that id.`,
        );
      }
      const { memory, owner } = found;
      if (owner.kind === 'server' && !mayForgetServerMemory(memory, context, member.id)) {
        throw new ToolError(
          'memory_forbidden',
          'Only the member who taught this server memory, or a member with Manage Server, can make you forget it.',
        );
      }
      await deleteMemory(db, { scopeId: context.scopeId, owner, id: memory.id });
      return `Forgotten: ${memory.content}`;
    },
  });
}

function listMemoriesTool({ db, limits }: MemoryStore): ToolDefinition {
  const listed = async (context: ToolContext, title: string, owner: MemoryOwner) =>
    section(title, await listMemories(db, context.scopeId, owner), limitOf(limits, owner));
  return defineTool({
    name: 'list_memories',
    description:
      "List what you remember: this server's shared facts and the personal facts about the person you are answering, with their ids.",
    input: z.strictObject({
      scope: scopeField.optional().describe('Only one kind; both when omitted.'),
      member: memberField,
    }),
    availability: { enabledByDefault: true },
    async execute(input, { context }) {
      scopeOfContext(context);
      const sections: string[] = [];
      const inGuild = context.guildId !== undefined;
      if (inGuild && input.scope !== 'user') {
        sections.push(await listed(context, 'Server memories', { kind: 'server' }));
      }
      if (input.scope !== 'server') {
        const ownerId = actingMember(context, input.member).id;
        for (const owner of ownersFor('user', context, ownerId).reverse()) {
          sections.push(await listed(context, titleOf(owner, context), owner));
        }
      }
      if (sections.length === 0) ownersFor('server', context, context.userId); // the DM explanation
      return sections.join('\n\n');
    },
  });
}

/**
 * Whose memories a scope means here, the one written to first: "user" is the member's — in a
 * character's turn its own memories of them, then the bot's — and "server" the scope's.
 */
function ownersFor(
  scope: 'server' | 'user',
  context: ToolContext,
  memberId: string,
): MemoryOwner[] {
  scopeOfContext(context);
  if (scope === 'user') {
    const shared: MemoryOwner = { kind: 'user', ownerId: memberId };
    const { character } = context;
    return character === undefined
      ? [shared]
      : [{ kind: 'user', ownerId: memberId, characterId: character.id }, shared];
  }
  if (context.guildId === undefined) {
    throw new ToolError(
      'memory_scope',
      'In a direct message there is no server to share memories with: use scope "user".',
    );
  }
  return [{ kind: 'server' }];
}

/** The first of `owners` holding the memory `id`. */
async function findOwned(
  db: Database,
  options: { scopeId: string; owners: readonly MemoryOwner[]; id: string },
): Promise<{ memory: Memory; owner: MemoryOwner } | undefined> {
  for (const owner of options.owners) {
    const memory = await findMemory(db, { scopeId: options.scopeId, owner, id: options.id });
    if (memory !== undefined) return { memory, owner };
  }
  return undefined;
}

/** The member who taught it, or Manage Server held by every member being answered. */
function mayForgetServerMemory(memory: Memory, context: ToolContext, memberId: string): boolean {
  return memory.authorId === memberId || holdsPermissions(context.memberPermissions, MANAGE_GUILD);
}

function labelOf(owner: MemoryOwner, context: ToolContext): string {
  if (owner.kind === 'server') return 'server memory';
  if (owner.characterId !== undefined) {
    return `memory of your own (as ${context.character?.name ?? 'this character'}) about the person you are answering`;
  }
  return 'personal memory of the person you are answering';
}

function titleOf(owner: MemoryOwner, context: ToolContext): string {
  if (owner.kind === 'server') return 'Server memories';
  if (owner.characterId !== undefined) {
    return `Your own memories of the person you are answering (only you, ${context.character?.name ?? 'this character'}, see these)`;
  }
  return context.character === undefined
    ? 'Personal memories of the person you are answering'
    : 'What is known about the person you are answering (shared with the bot and every character)';
}

function section(title: string, memories: Memory[], limit: number): string {
  const lines = memories.map((memory) => `- [${memory.id}] ${memory.content}`);
  return [
    `${title} (${memories.length}/${limit}):`,
    ...(lines.length > 0 ? lines : ['(none)']),
  ].join('\n');
}

/** Facts are stored on one line so a stored fact cannot fake structure in a later prompt. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
