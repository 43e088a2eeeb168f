import type { ToolSpec } from './chat.ts';

/** A member whose message the turn answers. */
export interface ToolAuthor {
  id: string;
  /** Their display name, as labelled in the conversation. */
  name: string;
}

/** Who and where a tool runs for. Ids are Discord snowflakes as strings. */
export interface ToolContext {
  /** The settings scope: a guild id, or the user id for a DM. */
  scopeId: string;
  guildId: string | undefined;
  channelId: string;
  /**
   * The author of the message being answered. In a coalesced batch with several authors this is
   * only the last one: a tool that acts FOR a member resolves who with `actingMember` (tools)
   * over `authors`, never from this field.
   */
  userId: string;
  /** Every member whose message the turn answers (one, or several in a coalesced batch). */
  authors?: readonly ToolAuthor[] | undefined;
  /** The message being answered. */
  messageId: string;
  /**
   * The character speaking the turn, when one does (undefined: the bot as itself): what it
   * learns about a member is its own memory, seen only in its turns.
   */
  character?: { id: string; name: string } | undefined;
  /** The assistant turn the call belongs to. */
  turnId: string;
  /**
   * The requesting member's permission bit set (as a decimal string), undefined in DMs. For a
   * batch of several authors: only the bits EVERY one of them holds (least privilege).
   */
  memberPermissions: string | undefined;
  locale: string;
  /** The scope's IANA time zone (settings.timezone); tools read time in UTC when absent. */
  timeZone?: string | undefined;
  /**
   * The scope's feature flags (settings.featureFlags), e.g. `tools.fetch_url: true`,
   * `mcp.<server>: true`. Absent means none: tools that are off by default stay off.
   */
  featureFlags?: Readonly<Record<string, unknown>> | undefined;
  /**
   * What the model in use supports (e.g. `images`), for tools that need more than text;
   * absent means "text only".
   */
  providerCapabilities?: readonly string[] | undefined;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type ToolResult = { ok: true; output: string } | { ok: false; error: string };

/** The port the turn orchestrator uses to list and run tools; the ToolRegistry implements it. */
export interface ToolExecutor {
  specs(context: ToolContext): ToolSpec[];
  execute(call: ToolCall, context: ToolContext, signal: AbortSignal): Promise<ToolResult>;
}
