import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { CommandCooldowns } from './command-cooldowns.ts';

describe('CommandCooldowns', () => {
  it('slows a user down per category and tells how long is left', async () => {
    const clock = new ManualClock();
    const cooldowns = new CommandCooldowns({ clock, cooldownsMs: { diagnostics: 10_000 } });
    expect(cooldowns.take('alice', 'diagnostics')).toBe(0);
    await clock.advance(4_000);
    expect(cooldowns.take('alice', 'diagnostics')).toBe(6_000);
    await clock.advance(6_000);
    expect(cooldowns.take('alice', 'diagnostics')).toBe(0);
  });

  it('keeps users and categories apart', () => {
    const clock = new ManualClock();
    const cooldowns = new CommandCooldowns({ clock });
    expect(cooldowns.take('alice', 'diagnostics')).toBe(0);
    expect(cooldowns.take('bob', 'diagnostics')).toBe(0);
    expect(cooldowns.take('alice', 'info')).toBe(0);
    expect(cooldowns.take('alice', 'diagnostics')).toBeGreaterThan(0);
  });
});
