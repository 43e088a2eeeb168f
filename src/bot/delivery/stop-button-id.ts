/**
 * The Stop button's custom id: this prefix, then the id of the live turn it stops (the one the
 * StopRegistry knows, whichever process streams it). The channel comes with the press itself,
 * so the id names one reply: a press after that reply ended stops nothing, even when a newer
 * turn streams in the channel. Not `stop:` — a custom id `<command>:…` belongs to that slash
 * command's own components (CommandRouter), and `/stop` exists.
 */
export const STOP_BUTTON_PREFIX = 'stop-reply:';

/** Discord's limit on a component's custom id. */
const CUSTOM_ID_MAX_CHARACTERS = 100;

/** What a live turn id may be: printable and short enough for the control bus and Discord. */
const TURN_ID_PATTERN = /^[\w-]{1,80}$/;

export function stopButtonId(turnId: string): string {
  if (!TURN_ID_PATTERN.test(turnId)) throw new Error(`not a turn id: ${turnId}`);
  return `${STOP_BUTTON_PREFIX}${turnId}`;
}

/** The turn a Stop button names, or undefined when the custom id is not a Stop button's. */
export function parseStopButtonId(customId: string): { turnId: string } | undefined {
  if (customId.length > CUSTOM_ID_MAX_CHARACTERS || !customId.startsWith(STOP_BUTTON_PREFIX)) {
    return undefined;
  }
  const turnId = customId.slice(STOP_BUTTON_PREFIX.length);
  return TURN_ID_PATTERN.test(turnId) ? { turnId } : undefined;
}
