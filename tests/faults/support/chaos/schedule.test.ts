import { describe, expect, it } from 'vitest';
import { chaosSeed, mulberry32 } from './prng.ts';
import { DATABASE_FAULTS, drawPlan, FAULT_KINDS, type PlanOptions } from './schedule.ts';

const OPTIONS: PlanOptions = {
  seed: 42,
  durationMs: 60_000,
  mentions: 200,
  channels: 10,
  members: 3,
  kinds: FAULT_KINDS,
  faultEveryMs: 5_000,
};

describe('the chaos schedule', () => {
  it('mulberry32 gives the same numbers for the same seed on every machine', () => {
    const random = mulberry32(1);
    expect([random.next(), random.next(), random.next()]).toEqual([
      0.6270739405881613, 0.002735721180215478, 0.5274470399599522,
    ]);
  });

  it('draws the same plan again from the same seed, and another from another seed', () => {
    expect(drawPlan(OPTIONS)).toEqual(drawPlan(OPTIONS));
    expect(drawPlan({ ...OPTIONS, seed: 43 })).not.toEqual(drawPlan(OPTIONS));
  });

  it('has every mention inside the run, in time order, with a token no other shares', () => {
    const plan = drawPlan(OPTIONS);
    expect(plan.mentions).toHaveLength(200);
    const times = plan.mentions.map((mention) => mention.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(Math.max(...times)).toBeLessThanOrEqual(OPTIONS.durationMs);
    expect(new Set(plan.mentions.map((mention) => mention.token)).size).toBe(200);
    expect(new Set(plan.mentions.map((mention) => mention.channel)).size).toBe(10);
    expect(new Set(plan.mentions.map((mention) => mention.member)).size).toBe(3);
  });

  it('strikes with every kind it is given at least once, and with no other', () => {
    const kinds = FAULT_KINDS.filter((kind) => !DATABASE_FAULTS.has(kind));
    const plan = drawPlan({ ...OPTIONS, kinds, durationMs: 20_000 });
    const struck = new Set(plan.faults.map((fault) => fault.fault.kind));
    expect([...struck].sort()).toEqual([...kinds].sort());
  });

  it('reads CHAOS_SEED, and names the variable when it is no whole number', () => {
    expect(chaosSeed({ CHAOS_SEED: '123' })).toBe(123);
    expect(() => chaosSeed({ CHAOS_SEED: 'abc' })).toThrow(/CHAOS_SEED/);
    expect(Number.isInteger(chaosSeed({}))).toBe(true);
  });
});
