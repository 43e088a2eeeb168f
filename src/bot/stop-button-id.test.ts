import { describe, expect, it } from 'vitest';
import { RETRY_BUTTON_PREFIX } from './failure-notice.ts';
import { parseStopButtonId, STOP_BUTTON_PREFIX, stopButtonId } from './stop-button-id.ts';

const TURN = '019abcde-f012-7345-8678-9abcdef01234';

describe('stop button ids', () => {
  it('names the live turn, and reads back the same turn', () => {
    expect(stopButtonId(TURN)).toBe(`stop:${TURN}`);
    expect(parseStopButtonId(stopButtonId(TURN))).toEqual({ turnId: TURN });
  });

  it('is never mistaken for the Retry button, nor the Retry button for it', () => {
    expect(STOP_BUTTON_PREFIX).not.toBe(RETRY_BUTTON_PREFIX);
    expect(parseStopButtonId(`${RETRY_BUTTON_PREFIX}300000000000000001`)).toBeUndefined();
  });

  it('refuses an id with no turn, a malformed turn or one past Discord limit', () => {
    expect(parseStopButtonId('stop:')).toBeUndefined();
    expect(parseStopButtonId('stop:a b')).toBeUndefined();
    expect(parseStopButtonId('stop:turn:extra')).toBeUndefined();
    expect(parseStopButtonId(`stop:${'a'.repeat(96)}`)).toBeUndefined();
    expect(parseStopButtonId('stopped:turn-1')).toBeUndefined();
  });

  it('will not build an id from something that is not a turn id', () => {
    expect(() => stopButtonId('')).toThrow();
    expect(() => stopButtonId('a:b')).toThrow();
  });
});
