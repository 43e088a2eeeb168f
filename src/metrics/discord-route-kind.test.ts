import { describe, expect, it } from 'vitest';
import { discordRequestKind, statusClass } from './discord-route-kind.ts';

describe('discordRequestKind', () => {
  it.each([
    ['POST', '/channels/:id/messages', 'message_create'],
    ['PATCH', '/channels/:id/messages/:id', 'message_edit'],
    ['DELETE', '/channels/:id/messages/:id', 'message_delete'],
    ['GET', '/channels/:id/messages', 'message_read'],
    ['post', '/channels/:id/typing', 'typing'],
    ['PUT', '/channels/:id/messages/:id/reactions/:reaction/@me', 'reaction'],
    ['POST', '/interactions/:id/:token/callback', 'interaction'],
    ['PATCH', '/webhooks/:id/:token/messages/@original', 'interaction'],
    ['GET', '/gateway/bot', 'other'],
  ])('%s %s is %s', (method, route, kind) => {
    expect(discordRequestKind(method, route)).toBe(kind);
  });

  it('never turns an id into a label: raw paths classify the same as templates', () => {
    expect(discordRequestKind('POST', '/channels/123456789012345678/messages')).toBe(
      'message_create',
    );
  });
});

describe('statusClass', () => {
  it('keeps 429 apart from other client errors', () => {
    expect([200, 204, 400, 429, 503].map(statusClass)).toEqual(['2xx', '2xx', '4xx', '429', '5xx']);
  });
});
