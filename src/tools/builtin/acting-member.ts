import { ToolError } from '../../core/errors.ts';
import type { ToolAuthor, ToolContext } from '../../core/tool.ts';

/** The argument tools that act for a member add to their input, described once. */
export const MEMBER_ARGUMENT_DESCRIPTION =
  'Who this is about or for: the name or id of one of the members you are answering, as in their message label. Required when you are answering several members at once.';

/**
 * The member a tool call acts for. With one author being answered it is that author (and a
 * `named` member must be them); with several (a coalesced batch) the model must name one of
 * them. Nobody outside the batch can ever be named: text in a message cannot make the bot act
 * for, or write about, a member who did not ask.
 */
export function actingMember(context: ToolContext, named: string | undefined): ToolAuthor {
  const authors = context.authors ?? [{ id: context.userId, name: '' }];
  if (named === undefined || named.trim() === '') {
    const [only] = authors;
    if (authors.length === 1 && only !== undefined) return only;
    throw new ToolError(
      'member_required',
      `You are answering several members (${describe(authors)}): say which one this is for in "member".`,
    );
  }
  const wanted = normalize(named);
  const matches = authors.filter(
    (author) => author.id === wanted || (author.name !== '' && normalize(author.name) === wanted),
  );
  const [match] = matches;
  if (matches.length === 1 && match !== undefined) return match;
  throw new ToolError(
    'member_unknown',
    `"${named.slice(0, 64)}" is not one of the members you are answering (${describe(authors)}); you can act only for them.`,
  );
}

function normalize(name: string): string {
  return name.trim().replace(/^@/, '').toLowerCase();
}

function describe(authors: readonly ToolAuthor[]): string {
  return authors
    .map((author) => (author.name === '' ? `id ${author.id}` : `${author.name} (id ${author.id})`))
    .join(', ');
}
