import { describe, expect, it } from 'vitest';
import { PrometheusMetrics } from './prometheus-metrics.ts';
import { parseExposition, samplesOf, valueOf } from './testing/exposition.ts';

function turn(model: string) {
  return {
    provider: 'openai',
    model,
    status: 'complete',
    timeToFirstTokenMs: 420,
    durationMs: 2_500,
    inputTokens: 120,
    outputTokens: 30,
  };
}

describe('PrometheusMetrics', () => {
  it('renders each family with the values reported', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    metrics.turnFinished(turn('gpt-5.4-mini'));
    metrics.toolCall({ tool: 'current_time', status: 'ok', durationMs: 12 });
    metrics.discordResponse({ method: 'POST', route: '/channels/:id/messages', status: 200 });
    metrics.discordResponse({
      method: 'PATCH',
      route: '/channels/:id/messages/:id',
      status: 429,
      rateLimitScope: 'global',
    });
    metrics.typingSkipped();
    metrics.stopLatency({ kind: 'phrase', milliseconds: 300 });
    metrics.databaseQuery({ operation: 'select', durationMs: 2, ok: true });
    metrics.databaseQuery({ operation: 'insert', durationMs: 3, ok: false });
    metrics.reminder('due', 2);
    metrics.reminder('delivered');
    metrics.observeTurnLoad(() => ({ live: 3, queued: 5 }));
    metrics.observeMcpServers(() => [
      { name: 'search', up: true },
      { name: 'files', up: false },
    ]);
    const samples = parseExposition(await metrics.render());
    const model = { provider: 'openai', model: 'gpt-5.4-mini' };
    const expected: Array<[string, Record<string, string>, number]> = [
      ['tomodachi_turns_total', { ...model, status: 'complete' }, 1],
      ['tomodachi_tokens_total', { ...model, direction: 'input' }, 120],
      ['tomodachi_tokens_total', { ...model, direction: 'output' }, 30],
      ['tomodachi_turn_first_token_seconds_bucket', { ...model, le: '0.25' }, 0],
      ['tomodachi_turn_first_token_seconds_bucket', { ...model, le: '0.5' }, 1],
      ['tomodachi_turn_duration_seconds_sum', model, 2.5],
      ['tomodachi_turns_live', {}, 3],
      ['tomodachi_turns_queued', {}, 5],
      ['tomodachi_discord_requests_total', { kind: 'message_create', status: '2xx' }, 1],
      ['tomodachi_discord_requests_total', { kind: 'message_edit', status: '429' }, 1],
      ['tomodachi_discord_rate_limited_total', { scope: 'global', kind: 'message_edit' }, 1],
      ['tomodachi_discord_typing_skipped_total', {}, 1],
      ['tomodachi_stop_latency_seconds_sum', { kind: 'phrase' }, 0.3],
      ['tomodachi_tool_calls_total', { tool: 'current_time', status: 'ok' }, 1],
      ['tomodachi_tool_call_duration_seconds_count', { tool: 'current_time' }, 1],
      ['tomodachi_mcp_server_up', { server: 'search' }, 1],
      ['tomodachi_mcp_server_up', { server: 'files' }, 0],
      ['tomodachi_db_query_duration_seconds_count', { operation: 'select' }, 1],
      ['tomodachi_db_query_errors_total', { operation: 'insert' }, 1],
      ['tomodachi_reminders_total', { event: 'due' }, 2],
      ['tomodachi_reminders_total', { event: 'delivered' }, 1],
    ];
    for (const [name, labels, value] of expected) {
      expect(samplesOf(samples, name, labels), `${name} ${JSON.stringify(labels)}`).toEqual([
        expect.objectContaining({ value }),
      ]);
    }
  });

  it('bounds the model label: past the limit every new model counts as other', async () => {
    const metrics = new PrometheusMetrics({ processMetrics: false });
    for (let index = 0; index < 40; index += 1) metrics.turnFinished(turn(`local-model-${index}`));
    const samples = parseExposition(await metrics.render());
    expect(samplesOf(samples, 'tomodachi_turns_total')).toHaveLength(33);
    expect(valueOf(samples, 'tomodachi_turns_total', { model: 'other' })).toBe(8);
  });

  it('puts constant labels (a shard) on every series, process metrics included', async () => {
    const metrics = new PrometheusMetrics({ constantLabels: { shard: '2' } });
    metrics.reminder('due');
    const samples = parseExposition(await metrics.render());
    expect(valueOf(samples, 'tomodachi_reminders_total', { event: 'due', shard: '2' })).toBe(1);
    expect(valueOf(samples, 'process_resident_memory_bytes', { shard: '2' })).toBeGreaterThan(0);
    expect(samplesOf(samples, 'nodejs_eventloop_lag_seconds', { shard: '2' })).toHaveLength(1);
    expect(samples.every((sample) => sample.labels.shard === '2')).toBe(true);
  });

  it('keeps instances apart: two bots in one process have their own registries', async () => {
    const first = new PrometheusMetrics({ processMetrics: false });
    const second = new PrometheusMetrics({ processMetrics: false });
    first.reminder('failed');
    expect(valueOf(parseExposition(await first.render()), 'tomodachi_reminders_total')).toBe(1);
    expect(valueOf(parseExposition(await second.render()), 'tomodachi_reminders_total')).toBe(0);
  });
});
