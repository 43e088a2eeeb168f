import { FIELD_ERRORS, type FormProblem } from './discord-error.ts';

/** `allowed_mentions` as sent on the wire (every field optional). */
export interface AllowedMentionsInput {
  parse?: unknown;
  users?: unknown;
  roles?: unknown;
  replied_user?: unknown;
}

/**
 * What Discord applies when a create or an EDIT carries no `allowed_mentions`: users, roles and
 * @everyone/@here are all parsed, and a reply pings its author. The edit case is the trap: an
 * edit without the field re-parses the new content with these defaults, whatever the create said.
 */
export const DEFAULT_ALLOWED_MENTIONS = {
  parse: ['users', 'roles', 'everyone'],
  replied_user: true,
} as const satisfies AllowedMentionsInput;

const PARSE_TYPES = ['users', 'roles', 'everyone'] as const;
const MAX_LISTED_IDS = 100;

/** Validates an `allowed_mentions` object; problems use Discord's codes and paths. */
export function validateAllowedMentions(value: unknown): FormProblem[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) {
    return [{ path: ['allowed_mentions'], error: FIELD_ERRORS.wrongType('dict') }];
  }
  const mentions = value as AllowedMentionsInput;
  const problems: FormProblem[] = [];
  const parse = Array.isArray(mentions.parse) ? (mentions.parse as unknown[]) : [];
  parse.forEach((entry, index) => {
    if (!(PARSE_TYPES as readonly unknown[]).includes(entry)) {
      problems.push({
        path: ['allowed_mentions', 'parse', index],
        error: FIELD_ERRORS.invalidEnum(entry),
      });
    }
  });
  for (const list of ['users', 'roles'] as const) {
    const ids = mentions[list];
    if (!Array.isArray(ids)) continue;
    if (ids.length > MAX_LISTED_IDS) {
      problems.push({
        path: ['allowed_mentions', list],
        error: FIELD_ERRORS.maxLength(MAX_LISTED_IDS),
      });
    }
    // Discord: "passing a falsy value ([], null) into users does not trigger a validation error".
    if (ids.length > 0 && parse.includes(list)) {
      problems.push({
        path: ['allowed_mentions'],
        error: {
          code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
          message: `parse:["${list}"] and ${list}: [ids...] are mutually exclusive.`,
        },
      });
    }
  }
  return problems;
}

/** Everything the content refers to, before any allowed_mentions or permission filter. */
export interface MentionTokens {
  everyone: boolean;
  here: boolean;
  userIds: string[];
  roleIds: string[];
}

/**
 * Finds mention syntax in content. It counts every occurrence, including those inside code
 * spans: Discord's own parser skips some markdown contexts, but a test oracle must never
 * under-report a leak.
 */
export function findMentionTokens(content: string): MentionTokens {
  const unique = (pattern: RegExp): string[] => [
    ...new Set([...content.matchAll(pattern)].map((match) => match[1] ?? '')),
  ];
  return {
    everyone: /@everyone/.test(content),
    here: /@here/.test(content),
    userIds: unique(/<@!?(\d{15,21})>/g),
    roleIds: unique(/<@&(\d{15,21})>/g),
  };
}

export interface MentionResolutionInput {
  content: string;
  /** The request's allowed_mentions; undefined applies DEFAULT_ALLOWED_MENTIONS. */
  allowedMentions: AllowedMentionsInput | undefined;
  /** The author of the message this one replies to, if any. */
  repliedAuthorId: string | null;
  /** The author holds MENTION_EVERYONE here (needed for @everyone/@here and unmentionable roles). */
  canMentionEveryone: boolean;
  /** Whether a user exists and can be pinged here (a guild member, or the DM's recipient). */
  isReachableUser: (userId: string) => boolean;
  /** undefined for a role that does not exist in this guild. */
  roleMentionable: (roleId: string) => boolean | undefined;
}

export interface ResolvedPings {
  everyone: boolean;
  here: boolean;
  userIds: string[];
  roleIds: string[];
  /** True when the replied-to author is pinged by the reply itself. */
  repliedUser: boolean;
}

/** Who a message really pings, applying allowed_mentions and the author's permissions. */
export function resolvePings(input: MentionResolutionInput): ResolvedPings {
  const allowed: AllowedMentionsInput = input.allowedMentions ?? DEFAULT_ALLOWED_MENTIONS;
  const parse = new Set(Array.isArray(allowed.parse) ? (allowed.parse as unknown[]) : []);
  const listed = (list: unknown): Set<string> =>
    new Set(Array.isArray(list) ? list.map((id) => String(id)) : []);
  const listedUsers = listed(allowed.users);
  const listedRoles = listed(allowed.roles);
  const tokens = findMentionTokens(input.content);

  const userIds = tokens.userIds.filter(
    (id) => (parse.has('users') || listedUsers.has(id)) && input.isReachableUser(id),
  );
  const roleIds = tokens.roleIds.filter((id) => {
    const mentionable = input.roleMentionable(id);
    if (mentionable === undefined) return false;
    const allowedByRequest = parse.has('roles') || listedRoles.has(id);
    return allowedByRequest && (mentionable || input.canMentionEveryone);
  });
  const everyoneAllowed = parse.has('everyone') && input.canMentionEveryone;
  const repliedUser =
    input.repliedAuthorId !== null &&
    allowed.replied_user === true &&
    input.isReachableUser(input.repliedAuthorId);
  if (repliedUser && input.repliedAuthorId !== null && !userIds.includes(input.repliedAuthorId)) {
    userIds.push(input.repliedAuthorId);
  }
  return {
    everyone: everyoneAllowed && tokens.everyone,
    here: everyoneAllowed && tokens.here,
    userIds,
    roleIds,
    repliedUser,
  };
}

export function pingsAnyone(pings: ResolvedPings): boolean {
  return pings.everyone || pings.here || pings.userIds.length > 0 || pings.roleIds.length > 0;
}
