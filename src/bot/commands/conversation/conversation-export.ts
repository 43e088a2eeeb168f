import type { TurnStatus } from '../../../db/schema.ts';

export type ExportFormat = 'markdown' | 'json';

/** What joins two rendered turns, at most (`,\n    ` in JSON). */
const SEPARATOR_BYTES = 8;

/** A stored turn as an export shows it. */
export interface ExportedTurn {
  role: 'user' | 'assistant';
  authorId: string;
  authorName: string | null;
  /** Set for a reply one of the bot's characters spoke (`authorName` is its name). */
  characterId?: string | null;
  status: TurnStatus;
  content: string;
  createdAt: Date;
  metrics: unknown;
  /** 0–1, what the context keeps first (core/importance.ts). */
  importance?: number;
  pinned?: boolean;
}

export interface ConversationExport {
  /** The file's text. */
  body: string;
  /** Turns in the file. */
  included: number;
  /** Older turns were left out (by the caller's read limit or the byte limit). */
  truncated: boolean;
}

/**
 * Renders a channel's conversation, oldest first, as Markdown or JSON — keeping the NEWEST
 * turns that fit in `byteLimit` (UTF-8) when all of them do not; the header says so.
 */
export function renderConversationExport(options: {
  format: ExportFormat;
  channelId: string;
  /** The channel's rolling summary of older messages, if any. */
  summary?: string | undefined;
  /** Oldest first. */
  turns: readonly ExportedTurn[];
  /** The caller already left older turns out (it reads a bounded number). */
  olderLeftOut: boolean;
  resetAt: Date | undefined;
  exportedAt: Date;
  byteLimit: number;
}): ConversationExport {
  const render = options.format === 'json' ? renderJson : renderMarkdown;
  const pieces = options.turns.map((turn) => render.turn(turn));
  // Room for the header and the framing, whose size barely depends on how many turns are left out.
  let room = options.byteLimit - byteLength(render.frame(options, [], true)) - 64;
  let first = pieces.length;
  while (first > 0) {
    const cost = byteLength(pieces[first - 1] ?? '') + SEPARATOR_BYTES;
    if (cost > room) break;
    room -= cost;
    first -= 1;
  }
  const kept = pieces.slice(first);
  const truncated = options.olderLeftOut || first > 0;
  return { body: render.frame(options, kept, truncated), included: kept.length, truncated };
}

interface Renderer {
  turn(turn: ExportedTurn): string;
  frame(
    options: {
      channelId: string;
      resetAt: Date | undefined;
      exportedAt: Date;
      summary?: string | undefined;
    },
    turns: readonly string[],
    truncated: boolean,
  ): string;
}

const renderMarkdown: Renderer = {
  turn(turn) {
    const who = turn.authorName ?? turn.authorId;
    const role = turn.role !== 'assistant' ? 'user' : isCharacter(turn) ? 'character' : 'assistant';
    const status = turn.status === 'complete' ? '' : ` · ${turn.status}`;
    return `### ${who} (${role}, id ${turn.authorId}) — ${turn.createdAt.toISOString()}${status}\n\n${turn.content}\n`;
  },
  frame(options, turns, truncated) {
    const lines = [
      `# Conversation in channel ${options.channelId}`,
      '',
      `- Exported: ${options.exportedAt.toISOString()}`,
      `- Since: ${options.resetAt === undefined ? 'the beginning' : `the reset at ${options.resetAt.toISOString()}`}`,
      `- Turns: ${turns.length}${truncated ? ' (older turns left out: size limit)' : ''}`,
      '',
      ...(options.summary === undefined
        ? []
        : ['## Summary of earlier messages', '', options.summary, '']),
    ];
    return `${lines.join('\n')}\n${turns.join('\n')}`;
  },
};

/** JSON.stringify leaves undefined fields out, so an unset importance or summary is absent. */
const renderJson: Renderer = {
  turn(turn) {
    return JSON.stringify({
      role: turn.role,
      author: {
        id: turn.authorId,
        name: turn.authorName,
        ...(isCharacter(turn) ? { characterId: turn.characterId } : {}),
      },
      createdAt: turn.createdAt.toISOString(),
      status: turn.status,
      content: turn.content,
      importance: turn.importance,
      ...(turn.pinned === true ? { pinned: true } : {}),
      ...(turn.role === 'assistant' && turn.metrics !== null ? { metrics: turn.metrics } : {}),
    });
  },
  frame(options, turns, truncated) {
    const header = {
      channelId: options.channelId,
      exportedAt: options.exportedAt.toISOString(),
      since: options.resetAt?.toISOString() ?? null,
      olderTurnsLeftOut: truncated,
      summary: options.summary,
    };
    const head = JSON.stringify(header, null, 2).replace(/\n}$/, '');
    return `${head},\n  "turns": [${turns.length === 0 ? '' : `\n    ${turns.join(',\n    ')}\n  `}]\n}\n`;
  },
};

function isCharacter(turn: ExportedTurn): boolean {
  return turn.role === 'assistant' && turn.characterId !== undefined && turn.characterId !== null;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
