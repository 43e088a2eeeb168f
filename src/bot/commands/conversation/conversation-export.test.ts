import { describe, expect, it } from 'vitest';
import { renderConversationExport, type ExportedTurn } from './conversation-export.ts';

const turn = (index: number, overrides: Partial<ExportedTurn> = {}): ExportedTurn => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  authorId: index % 2 === 0 ? '200' : '100',
  authorName: index % 2 === 0 ? 'alice' : 'Tomo',
  status: 'complete',
  content: `message number ${index}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 12, 0, index)),
  metrics: index % 2 === 0 ? null : { outputTokens: index },
  ...overrides,
});

const base = {
  channelId: '300',
  resetAt: new Date(Date.UTC(2026, 0, 1, 11)),
  exportedAt: new Date(Date.UTC(2026, 0, 2)),
  olderLeftOut: false,
  byteLimit: 1_000_000,
};

describe('renderConversationExport', () => {
  it('writes Markdown oldest first with authors, ids, times and non-complete statuses', () => {
    const exported = renderConversationExport({
      ...base,
      format: 'markdown',
      turns: [turn(0), turn(1, { status: 'stopped', content: 'half an ans' })],
    });
    expect(exported).toMatchObject({ included: 2, truncated: false });
    expect(exported.body).toContain('- Since: the reset at 2026-01-01T11:00:00.000Z');
    const alice = exported.body.indexOf('### alice (user, id 200) — 2026-01-01T12:00:00.000Z');
    const tomo = exported.body.indexOf(
      '### Tomo (assistant, id 100) — 2026-01-01T12:00:01.000Z · stopped',
    );
    expect(alice).toBeGreaterThan(0);
    expect(tomo).toBeGreaterThan(alice);
    expect(exported.body).toContain('message number 0');
    expect(exported.body).toContain('half an ans');
  });

  it('writes JSON that parses, with metrics on assistant turns only', () => {
    const exported = renderConversationExport({
      ...base,
      format: 'json',
      turns: [turn(0), turn(1)],
    });
    const parsed = JSON.parse(exported.body) as {
      channelId: string;
      since: string;
      olderTurnsLeftOut: boolean;
      turns: Array<Record<string, unknown>>;
    };
    expect(parsed).toMatchObject({
      channelId: '300',
      since: '2026-01-01T11:00:00.000Z',
      olderTurnsLeftOut: false,
    });
    expect(parsed.turns).toEqual([
      {
        role: 'user',
        author: { id: '200', name: 'alice' },
        createdAt: '2026-01-01T12:00:00.000Z',
        status: 'complete',
        content: 'message number 0',
      },
      {
        role: 'assistant',
        author: { id: '100', name: 'Tomo' },
        createdAt: '2026-01-01T12:00:01.000Z',
        status: 'complete',
        content: 'message number 1',
        metrics: { outputTokens: 1 },
      },
    ]);
  });

  it('keeps the newest turns that fit under the byte limit, in both formats, and says so', () => {
    const turns = Array.from({ length: 200 }, (_, index) =>
      turn(index, { content: `${index}: ${'データ'.repeat(40)}` }),
    );
    for (const format of ['markdown', 'json'] as const) {
      const exported = renderConversationExport({ ...base, format, turns, byteLimit: 8_000 });
      expect(Buffer.byteLength(exported.body)).toBeLessThanOrEqual(8_000);
      expect(exported.truncated).toBe(true);
      expect(exported.included).toBeGreaterThan(5);
      expect(exported.included).toBeLessThan(200);
      const hasTurn = (index: number) => new RegExp(`(^|["\\n])${index}: `).test(exported.body);
      expect(hasTurn(199)).toBe(true);
      expect(hasTurn(200 - exported.included)).toBe(true);
      expect(hasTurn(199 - exported.included)).toBe(false);
      if (format === 'json') {
        const parsed = JSON.parse(exported.body) as {
          turns: unknown[];
          olderTurnsLeftOut: boolean;
        };
        expect(parsed.turns).toHaveLength(exported.included);
        expect(parsed.olderTurnsLeftOut).toBe(true);
      } else {
        expect(exported.body).toContain('older turns left out');
      }
    }
  });

  it('reports older turns the caller left out even when everything it passed fits', () => {
    const exported = renderConversationExport({
      ...base,
      format: 'json',
      turns: [turn(0)],
      olderLeftOut: true,
      resetAt: undefined,
    });
    expect(exported.truncated).toBe(true);
    expect(JSON.parse(exported.body)).toMatchObject({ since: null, olderTurnsLeftOut: true });
  });
});

describe('the export of importance, pins and the rolling summary', () => {
  it('shows each turn’s importance and pin and the summary in JSON and Markdown', () => {
    const options = {
      channelId: '1',
      summary: 'Ann wants answers in French.',
      turns: [
        {
          role: 'user' as const,
          authorId: '2',
          authorName: 'ann',
          status: 'complete' as const,
          content: 'Always answer in French.',
          createdAt: new Date(0),
          metrics: null,
          importance: 0.9,
          pinned: true,
        },
      ],
      olderLeftOut: false,
      resetAt: undefined,
      exportedAt: new Date(0),
      byteLimit: 10_000,
    };
    const json = JSON.parse(renderConversationExport({ ...options, format: 'json' }).body) as {
      summary: string;
      turns: Array<{ importance: number; pinned: boolean }>;
    };
    expect(json.summary).toBe('Ann wants answers in French.');
    expect(json.turns[0]).toMatchObject({ importance: 0.9, pinned: true });
    const markdown = renderConversationExport({ ...options, format: 'markdown' }).body;
    expect(markdown).toContain('## Summary of earlier messages\n\nAnn wants answers in French.');
  });

  it('names a character’s reply as the character’s, in Markdown and in JSON', () => {
    const alice = turn(1, { authorName: 'Alice', characterId: 'c-1' });
    const markdown = renderConversationExport({ ...base, format: 'markdown', turns: [alice] });
    expect(markdown.body).toContain('### Alice (character, id 100)');
    const json = renderConversationExport({ ...base, format: 'json', turns: [alice, turn(3)] });
    const parsed = JSON.parse(json.body) as { turns: Array<{ author: Record<string, unknown> }> };
    expect(parsed.turns.map((item) => item.author)).toEqual([
      { id: '100', name: 'Alice', characterId: 'c-1' },
      { id: '100', name: 'Tomo' },
    ]);
  });
});
