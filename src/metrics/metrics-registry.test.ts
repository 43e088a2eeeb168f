import { describe, expect, it } from 'vitest';
import { MetricsRegistry } from './metrics-registry.ts';

describe('MetricsRegistry', () => {
  it('renders counters, gauges and histograms in the Prometheus text format', () => {
    const registry = new MetricsRegistry();
    registry.increment('bot_turns_total', 'Turns answered', { status: 'complete' });
    registry.increment('bot_turns_total', 'Turns answered', { status: 'complete' }, 2);
    registry.set('bot_live_turns', 'Turns streaming now', 4);
    registry.observe('bot_first_token_ms', 'Time to first token', 42, { provider: 'openai' });
    const text = registry.render();
    expect(text).toContain('# TYPE bot_turns_total counter');
    expect(text).toContain('bot_turns_total{status="complete"} 3');
    expect(text).toContain('bot_live_turns 4');
    expect(text).toContain('bot_first_token_ms_bucket{provider="openai",le="25"} 0');
    expect(text).toContain('bot_first_token_ms_bucket{provider="openai",le="50"} 1');
    expect(text).toContain('bot_first_token_ms_count{provider="openai"} 1');
  });

  it('escapes label values', () => {
    const registry = new MetricsRegistry();
    registry.increment('x_total', 'x', { name: 'a"b\\c' });
    expect(registry.render()).toContain('x_total{name="a\\"b\\\\c"} 1');
  });
});
