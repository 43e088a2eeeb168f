import { describe, expect, it } from 'vitest';
import { closeOutcome, fatalCloseAdvice } from './gateway-close-codes.ts';

describe('gateway close codes', () => {
  it('sorts codes the way discord.js reacts to them', () => {
    expect([4000, 1006, 1001, 4009, 4200].map(closeOutcome)).toEqual([
      'resume',
      'resume',
      'resume',
      'resume',
      'resume',
    ]);
    expect([1000, 4003, 4005, 4007, 4008].map(closeOutcome)).toEqual([
      'reconnect',
      'reconnect',
      'reconnect',
      'reconnect',
      'reconnect',
    ]);
    expect([4004, 4010, 4011, 4012, 4013, 4014].map(closeOutcome)).toEqual(Array(6).fill('fatal'));
  });

  it('says what to fix for the closes only the operator can fix', () => {
    expect(fatalCloseAdvice(4004)).toMatch(/DISCORD_TOKEN.*Reset Token/);
    expect(fatalCloseAdvice(4014)).toMatch(
      /Message Content Intent.*developer portal.*Bot → Privileged Gateway Intents/,
    );
    expect(fatalCloseAdvice(4000)).toBeUndefined();
    expect(fatalCloseAdvice(1000)).toBeUndefined();
  });
});
