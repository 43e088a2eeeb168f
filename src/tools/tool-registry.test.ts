import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../core/errors.ts';
import { silentLogger } from '../core/logger.ts';
import { noMetrics } from '../core/metrics.ts';
import type { ToolContext } from '../core/tool.ts';
import { ManualClock, settle } from '../stream/testing/manual-clock.ts';
import type { ToolCallEntry } from './tool-call-recorder.ts';
import { defineTool, type ToolDefinition } from './tool-definition.ts';
import { ToolRegistry } from './tool-registry.ts';
import { containing } from '../../tests/tools/support/matchers.ts';

const GUILD_CONTEXT: ToolContext = {
  scopeId: '100000000000000001',
  guildId: '100000000000000001',
  channelId: '200000000000000002',
  userId: '300000000000000003',
  messageId: '400000000000000004',
  turnId: '7b0d5f3e-2f8e-4d7c-9a8b-0c1d2e3f4a5b',
  memberPermissions: '0',
  locale: 'en-US',
};
const DM_CONTEXT: ToolContext = {
  ...GUILD_CONTEXT,
  scopeId: GUILD_CONTEXT.userId,
  guildId: undefined,
  memberPermissions: undefined,
};

function echoTool(overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  const echo = defineTool({
    name: 'echo',
    description: 'Repeats the text.',
    input: z.strictObject({ text: z.string().max(50) }),
    availability: { enabledByDefault: true },
    execute: (input) => `echo: ${input.text}`,
  });
  return { ...echo, ...overrides };
}

/** A tool that waits until its signal aborts (or ignores it, to test the registry's guard). */
function hangingTool(options: { ignoreAbort?: boolean; seen?: { aborted: boolean } } = {}) {
  return defineTool({
    name: 'hang',
    description: 'Never finishes on its own.',
    input: z.strictObject({}),
    availability: { enabledByDefault: true },
    execute: (_input, { signal }) =>
      new Promise<string>((_resolve, reject) => {
        if (options.ignoreAbort) return;
        signal.addEventListener('abort', () => {
          if (options.seen) options.seen.aborted = true;
          reject(new Error('stopped'));
        });
      }),
  });
}

function setup(options: { timeoutMs?: number; maxResultChars?: number } = {}) {
  const clock = new ManualClock();
  const recorded: ToolCallEntry[] = [];
  const registry = new ToolRegistry({
    clock,
    logger: silentLogger,
    recorder: {
      record: (entry) => {
        recorded.push(entry);
        return Promise.resolve();
      },
    },
    ...options,
  });
  return { clock, registry, recorded };
}

describe('ToolRegistry', () => {
  it('lists only the tools available in the context, sorted, with a JSON schema of their input', () => {
    const { registry } = setup();
    registry.register(
      echoTool(),
      defineTool({
        name: 'guild_only',
        description: 'g',
        input: z.strictObject({}),
        availability: { enabledByDefault: true, where: 'guild' },
        execute: () => '',
      }),
      defineTool({
        name: 'off_by_default',
        description: 'o',
        input: z.strictObject({}),
        availability: { enabledByDefault: false },
        execute: () => '',
      }),
      defineTool({
        name: 'needs_manage_guild',
        description: 'm',
        input: z.strictObject({}),
        availability: { enabledByDefault: true, requiredMemberPermissions: 1n << 5n },
        execute: () => '',
      }),
      defineTool({
        name: 'needs_images',
        description: 'i',
        input: z.strictObject({}),
        availability: { enabledByDefault: true, requiredCapabilities: ['images'] },
        execute: () => '',
      }),
    );
    const names = (context: ToolContext) => registry.specs(context).map((spec) => spec.name);

    expect(names(GUILD_CONTEXT)).toEqual(['echo', 'guild_only']);
    expect(names(DM_CONTEXT)).toEqual(['echo', 'needs_manage_guild']);
    expect(
      names({
        ...GUILD_CONTEXT,
        featureFlags: { 'tools.off_by_default': true, 'tools.echo': false },
        memberPermissions: String(1n << 5n),
        providerCapabilities: ['images'],
      }),
    ).toEqual(['guild_only', 'needs_images', 'needs_manage_guild', 'off_by_default']);
    expect(names({ ...GUILD_CONTEXT, memberPermissions: '8' })).toContain('needs_manage_guild');
    expect(registry.specs(GUILD_CONTEXT)[0]).toEqual({
      name: 'echo',
      description: 'Repeats the text.',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string', maxLength: 50 } },
        required: ['text'],
        additionalProperties: false,
      },
    });
  });

  it('refuses duplicate names and names that are not valid for every vendor', () => {
    const { registry } = setup();
    registry.register(echoTool());
    expect(() => registry.register(echoTool())).toThrow(ToolError);
    expect(() => registry.register(echoTool({ name: 'has space' }))).toThrow(ToolError);
    expect(() => registry.register(echoTool({ name: 'server__tool' }))).toThrow(ToolError);
    expect(() => registry.register(echoTool({ name: 'x'.repeat(65) }))).toThrow(ToolError);
  });

  it('runs a tool and records the call', async () => {
    const { registry, recorded } = setup();
    registry.register(echoTool());
    const result = await registry.execute(
      { id: 'c1', name: 'echo', input: { text: 'hi' } },
      GUILD_CONTEXT,
      new AbortController().signal,
    );
    expect(result).toEqual({ ok: true, output: 'echo: hi' });
    expect(recorded).toEqual([
      {
        turnId: GUILD_CONTEXT.turnId,
        scopeId: GUILD_CONTEXT.scopeId,
        toolName: 'echo',
        status: 'ok',
        durationMs: 0,
        argumentSummary: '{"text":"hi"}',
        resultSummary: 'echo: hi',
      },
    ]);
  });

  it('turns bad arguments into an error result the model can read, without running the tool', async () => {
    const { registry, recorded } = setup();
    let ran = false;
    registry.register(
      echoTool({
        execute: () => {
          ran = true;
          return '';
        },
      }),
    );
    const signal = new AbortController().signal;
    const tooLong = await registry.execute(
      { id: 'c1', name: 'echo', input: { text: 'x'.repeat(51) } },
      GUILD_CONTEXT,
      signal,
    );
    const extraKey = await registry.execute(
      { id: 'c2', name: 'echo', input: { text: 'a', userId: '1' } },
      GUILD_CONTEXT,
      signal,
    );
    const notJson = await registry.execute(
      { id: 'c3', name: 'echo', input: undefined },
      GUILD_CONTEXT,
      signal,
    );
    expect(ran).toBe(false);
    expect(tooLong).toMatchObject({ ok: false, error: containing('text') });
    expect(extraKey).toMatchObject({ ok: false, error: containing('userId') });
    expect(notJson).toEqual({ ok: false, error: 'The arguments for "echo" were not valid JSON.' });
    expect(recorded.map((entry) => entry.status)).toEqual(['error', 'error', 'error']);
  });

  it('answers an unknown or unavailable tool with an error result instead of running it', async () => {
    const { registry } = setup();
    registry.register(echoTool({ availability: { enabledByDefault: true, where: 'guild' } }));
    const signal = new AbortController().signal;
    expect(
      await registry.execute({ id: 'c', name: 'nope', input: {} }, GUILD_CONTEXT, signal),
    ).toEqual({ ok: false, error: 'There is no tool named "nope".' });
    expect(
      await registry.execute({ id: 'c', name: 'echo', input: { text: 'a' } }, DM_CONTEXT, signal),
    ).toEqual({
      ok: false,
      error: 'The tool "echo" is not available here: it only works in a server, not in DMs.',
    });
  });

  it('stops a call at the default 30 s timeout, aborting the tool', async () => {
    const { registry, clock, recorded } = setup();
    const seen = { aborted: false };
    registry.register(hangingTool({ seen }));
    const pending = registry.execute(
      { id: 'c', name: 'hang', input: {} },
      GUILD_CONTEXT,
      new AbortController().signal,
    );
    await clock.advance(29_999);
    expect(seen.aborted).toBe(false);
    await clock.advance(1);
    expect(await pending).toEqual({
      ok: false,
      error: 'The tool "hang" did not finish within 30 s and was stopped.',
    });
    expect(seen.aborted).toBe(true);
    expect(recorded[0]).toMatchObject({ status: 'timeout', durationMs: 30_000 });
  });

  it("honours a tool's own timeout", async () => {
    const { registry, clock } = setup();
    registry.register({ ...hangingTool(), timeoutMs: 2_000 });
    const pending = registry.execute(
      { id: 'c', name: 'hang', input: {} },
      GUILD_CONTEXT,
      new AbortController().signal,
    );
    await clock.advance(2_000);
    expect(await pending).toMatchObject({ ok: false, error: containing('2 s') });
  });

  it('returns promptly on abort even when the tool ignores its signal', async () => {
    const { registry, clock, recorded } = setup();
    registry.register(hangingTool({ ignoreAbort: true }));
    const stop = new AbortController();
    const pending = registry.execute(
      { id: 'c', name: 'hang', input: {} },
      GUILD_CONTEXT,
      stop.signal,
    );
    await settle();
    stop.abort();
    expect(await pending).toEqual({ ok: false, error: 'Cancelled.' });
    expect(recorded[0]?.status).toBe('aborted');
    expect(clock.pendingSleeps()).toEqual([]);
  });

  it('does not start a tool when the turn was already stopped', async () => {
    const { registry } = setup();
    let ran = false;
    registry.register(
      echoTool({
        execute: () => {
          ran = true;
          return '';
        },
      }),
    );
    const stop = new AbortController();
    stop.abort();
    expect(
      await registry.execute(
        { id: 'c', name: 'echo', input: { text: 'a' } },
        GUILD_CONTEXT,
        stop.signal,
      ),
    ).toEqual({ ok: false, error: 'Cancelled.' });
    expect(ran).toBe(false);
  });

  it('gives the model a ToolError message but never the text of an unexpected error', async () => {
    const { registry } = setup();
    registry.register(
      echoTool({
        execute: () => {
          throw new ToolError('invalid', 'That emoji does not exist here.');
        },
      }),
      echoTool({
        name: 'leaky',
        execute: () => {
          throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db');
        },
      }),
    );
    const signal = new AbortController().signal;
    expect(
      await registry.execute(
        { id: 'c', name: 'echo', input: { text: 'a' } },
        GUILD_CONTEXT,
        signal,
      ),
    ).toEqual({ ok: false, error: 'That emoji does not exist here.' });
    const leaky = await registry.execute(
      { id: 'c', name: 'leaky', input: { text: 'a' } },
      GUILD_CONTEXT,
      signal,
    );
    expect(leaky).toEqual({ ok: false, error: 'The tool "leaky" failed unexpectedly.' });
  });

  it('caps a long result and says how much was cut', async () => {
    const { registry } = setup({ maxResultChars: 100 });
    registry.register(echoTool({ execute: () => 'y'.repeat(1_000) }));
    const result = await registry.execute(
      { id: 'c', name: 'echo', input: { text: 'a' } },
      GUILD_CONTEXT,
      new AbortController().signal,
    );
    expect(result.ok && result.output.length).toBe(100);
    expect(result.ok && result.output).toMatch(/more characters cut\]$/);
  });

  it('keeps secrets out of the audit summaries', async () => {
    const { registry, recorded } = setup();
    registry.register(
      defineTool({
        name: 'fetchy',
        description: 'f',
        input: z.strictObject({ url: z.string(), apiKey: z.string() }),
        availability: { enabledByDefault: true },
        execute: () => 'Authorization: Bearer abc.def.ghi',
      }),
    );
    await registry.execute(
      {
        id: 'c',
        name: 'fetchy',
        input: { url: 'https://user:pw@example.com/?access_token=s3cr3t&q=cats', apiKey: 'k' },
      },
      GUILD_CONTEXT,
      new AbortController().signal,
    );
    const [entry] = recorded;
    expect(entry?.argumentSummary).toBe(
      '{"url":"https://[redacted]example.com/?access_token=[redacted]&q=cats","apiKey":"[redacted]"}',
    );
    expect(entry?.resultSummary).toBe('Authorization: [redacted]');
  });

  it('still returns the result when the audit insert fails', async () => {
    const registry = new ToolRegistry({
      clock: new ManualClock(),
      logger: silentLogger,
      recorder: {
        record: () => Promise.reject(new Error('database down')),
      },
    });
    registry.register(echoTool());
    expect(
      await registry.execute(
        { id: 'c', name: 'echo', input: { text: 'a' } },
        GUILD_CONTEXT,
        new AbortController().signal,
      ),
    ).toEqual({ ok: true, output: 'echo: a' });
  });

  it('lists and runs the tools of a source, and explains a tool its source cannot run now', async () => {
    const { registry } = setup();
    let up = true;
    const remote = echoTool({ name: 'search__echo' });
    registry.addSource({
      tools: () => (up ? [remote] : []),
      unavailableReason: (name) =>
        name.startsWith('search__') ? 'The MCP server "search" is restarting.' : undefined,
    });
    const signal = new AbortController().signal;
    expect(registry.specs(GUILD_CONTEXT).map((spec) => spec.name)).toEqual(['search__echo']);
    expect(
      await registry.execute(
        { id: 'c', name: 'search__echo', input: { text: 'a' } },
        GUILD_CONTEXT,
        signal,
      ),
    ).toEqual({ ok: true, output: 'echo: a' });
    up = false;
    expect(registry.specs(GUILD_CONTEXT)).toEqual([]);
    expect(
      await registry.execute(
        { id: 'c', name: 'search__echo', input: { text: 'a' } },
        GUILD_CONTEXT,
        signal,
      ),
    ).toEqual({ ok: false, error: 'The MCP server "search" is restarting.' });
  });
});

describe('ToolRegistry metrics', () => {
  it('counts every call by tool and status, a made-up tool name as unknown', async () => {
    const calls: unknown[] = [];
    const registry = new ToolRegistry({
      clock: new ManualClock(),
      logger: silentLogger,
      metrics: { ...noMetrics, toolCall: (call) => calls.push(call) },
    }).register(echoTool());
    const signal = new AbortController().signal;
    await registry.execute({ id: '1', name: 'echo', input: { text: 'hi' } }, GUILD_CONTEXT, signal);
    await registry.execute({ id: '2', name: 'echo', input: { text: 1 } }, GUILD_CONTEXT, signal);
    await registry.execute({ id: '3', name: 'rm_rf_everything', input: {} }, GUILD_CONTEXT, signal);
    expect(calls).toEqual([
      { tool: 'echo', status: 'ok', durationMs: 0 },
      { tool: 'echo', status: 'error', durationMs: 0 },
      { tool: 'unknown', status: 'error', durationMs: 0 },
    ]);
  });
});
