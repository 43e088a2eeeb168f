import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { guardEvent } from './gateway-tolerance.ts';

function recording() {
  const events: unknown[] = [];
  const logger: Logger = {
    ...silentLogger,
    warn: (first: object | string) => events.push((first as { event?: unknown }).event),
    child: () => logger,
  };
  return { events, logger };
}

describe('guardEvent', () => {
  it('logs what a handler throws at once, with the event name, and goes on', () => {
    const { events, logger } = recording();
    const handler = guardEvent('messageUpdate', logger, (value: { content: string } | null) =>
      value!.content.trim(),
    );
    expect(() => handler(null)).not.toThrow();
    handler({ content: ' fine ' });
    expect(events).toEqual(['messageUpdate']);
  });

  it('logs what a handler rejects with later', async () => {
    const { events, logger } = recording();
    const handler = guardEvent('interactionCreate', logger, () =>
      Promise.reject(new TypeError("Cannot read properties of null (reading 'id')")),
    );
    handler();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['interactionCreate']);
  });
});
