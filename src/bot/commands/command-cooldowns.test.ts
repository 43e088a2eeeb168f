import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { CommandCooldowns } from './command-cooldowns.ts';

describe('CommandCooldowns', () => {
  it('allows a burst, then one use per refill interval, and tells how long is left', async () => {
    const clock = new ManualClock();
    const cooldowns = new CommandCooldowns({
      clock,
      rules: { diagnostics: { burst: 2, refillMs: 10_000 } },
    });
    expect(cooldowns.take('alice', 'diagnostics')).toBe(0);
    expect(cooldowns.take('alice', 'diagnostics')).toBe(0);
    expect(cooldowns.take('alice', 'diagnostics')).toBe(10_000);
    await clock.advance(4_000);
    expect(cooldowns.take('alice', 'diagnostics')).toBe(6_000);
    await clock.advance(6_000);
    expect(cooldowns.take('alice', 'diagnostics')).toBe(0);
    expect(cooldowns.take('alice', 'diagnostics')).toBeGreaterThan(0);
  });

  it('keeps users and categories apart', () => {
    const clock = new ManualClock();
    const cooldowns = new CommandCooldowns({
      clock,
      rules: { diagnostics: { burst: 1, refillMs: 10_000 } },
    });
    expect(cooldowns.take('alice', 'diagnostics')).toBe(0);
    expect(cooldowns.take('bob', 'diagnostics')).toBe(0);
    expect(cooldowns.take('alice', 'info')).toBe(0);
    expect(cooldowns.take('alice', 'diagnostics')).toBeGreaterThan(0);
  });
});
