import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import type { ToolContext } from '../../core/tool.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { ToolRegistry } from '../tool-registry.ts';
import { createCurrentTimeTool } from './current-time-tool.ts';
import { formatZoned, zonedLocalToEpoch } from './zoned-time.ts';
import { containing } from '../../../tests/tools/support/matchers.ts';

const CONTEXT: ToolContext = {
  scopeId: '100000000000000001',
  guildId: '100000000000000001',
  channelId: '200000000000000002',
  userId: '300000000000000003',
  messageId: '400000000000000004',
  turnId: 't',
  memberPermissions: '0',
  locale: 'en-US',
};

async function currentTime(context: ToolContext, input: unknown = {}) {
  const clock = new ManualClock(Date.UTC(2026, 6, 4, 22, 30, 0));
  const registry = new ToolRegistry({ clock, logger: silentLogger }).register(
    createCurrentTimeTool({ clock }),
  );
  return registry.execute(
    { id: 'c', name: 'current_time', input },
    context,
    new AbortController().signal,
  );
}

describe('current_time', () => {
  it("reads the time in the scope's time zone, across the date line", async () => {
    expect(await currentTime({ ...CONTEXT, timeZone: 'Asia/Tokyo' })).toEqual({
      ok: true,
      output:
        'Sunday, July 5, 2026 at 07:30 in Asia/Tokyo (UTC+09:00). ISO 8601: 2026-07-05T07:30:00+09:00',
    });
    expect(await currentTime({ ...CONTEXT, timeZone: 'America/New_York' })).toMatchObject({
      output: containing('2026-07-04T18:30:00-04:00'),
    });
  });

  it('uses UTC without a time zone, says so for an unknown one, and takes one from the model', async () => {
    expect(await currentTime(CONTEXT)).toMatchObject({
      output: containing('in UTC (UTC+00:00). ISO 8601: 2026-07-04T22:30:00+00:00'),
    });
    expect(await currentTime({ ...CONTEXT, timeZone: 'Mars/Olympus' })).toMatchObject({
      output: containing('the configured time zone "Mars/Olympus" is unknown'),
    });
    expect(await currentTime(CONTEXT, { timeZone: 'Asia/Kolkata' })).toMatchObject({
      output: containing('+05:30'),
    });
    expect(await currentTime(CONTEXT, { timeZone: 'Nowhere' })).toMatchObject({ ok: false });
  });
});

describe('zoned time', () => {
  const zones = [
    'Europe/Paris',
    'America/Los_Angeles',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'UTC',
  ];

  it('turns a formatted local time back into the same instant (whole minutes, any zone)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2040, 0, 1) }),
        fc.constantFrom(...zones),
        (epoch, zone) => {
          const instant = Math.floor(epoch / 60_000) * 60_000;
          const iso = formatZoned(instant, zone).iso;
          const [date, time] = iso.slice(0, 19).split('T') as [string, string];
          const [year, month, day] = date.split('-').map(Number) as [number, number, number];
          const [hour, minute, second] = time.split(':').map(Number) as [number, number, number];
          const back = zonedLocalToEpoch({ year, month, day, hour, minute, second }, zone);
          // An ambiguous hour (clocks going back) may resolve to its other occurrence.
          expect(formatZoned(back, zone).iso.slice(0, 19)).toBe(iso.slice(0, 19));
          expect(Date.parse(iso)).toBe(instant);
        },
      ),
    );
  });
});
