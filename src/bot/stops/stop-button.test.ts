import { describe, expect, it } from 'vitest';
import { createCommands } from '../commands/command-list.ts';
import { RETRY_BUTTON_PREFIX } from '../delivery/failure-notice.ts';
import { parseStopButtonId, STOP_BUTTON_PREFIX, stopButtonId } from '../delivery/stop-button-id.ts';

const TURN = '019abcde-f012-7345-8678-9abcdef01234';

describe('stop button ids', () => {
  it('names the live turn, and reads back the same turn', () => {
    expect(stopButtonId(TURN)).toBe(`stop-reply:${TURN}`);
    expect(parseStopButtonId(stopButtonId(TURN))).toEqual({ turnId: TURN });
  });

  it('is never mistaken for the Retry button, nor the Retry button for it', () => {
    expect(STOP_BUTTON_PREFIX).not.toBe(RETRY_BUTTON_PREFIX);
    expect(parseStopButtonId(`${RETRY_BUTTON_PREFIX}300000000000000001`)).toBeUndefined();
  });

  it('is no slash command component: the command router routes `<command>:…` ids to /stop', () => {
    const names = createCommands().map((command) => command.definition.name);
    expect(names).toContain('stop');
    expect(names).not.toContain(stopButtonId(TURN).split(':')[0]);
  });

  it('refuses an id with no turn, a malformed turn or one past Discord limit', () => {
    expect(parseStopButtonId('stop-reply:')).toBeUndefined();
    expect(parseStopButtonId('stop-reply:a b')).toBeUndefined();
    expect(parseStopButtonId('stop-reply:turn:extra')).toBeUndefined();
    expect(parseStopButtonId(`stop-reply:${'a'.repeat(90)}`)).toBeUndefined();
    expect(parseStopButtonId('stop:turn-1')).toBeUndefined();
  });

  it('will not build an id from something that is not a turn id', () => {
    expect(() => stopButtonId('')).toThrow();
    expect(() => stopButtonId('a:b')).toThrow();
  });
});
