import { describe, expect, it } from 'vitest';
import { createDiscordClient, restRequestUrl } from './discord-client.ts';

const apiUrl = 'https://discord.com/api';
const restProxyUrl = 'http://rest-proxy:8080/api';

describe('restRequestUrl', () => {
  it('sends bot requests through the proxy with path and query intact', () => {
    expect(
      restRequestUrl(`${apiUrl}/v10/channels/123/messages?limit=5`, { apiUrl, restProxyUrl }),
    ).toBe(`${restProxyUrl}/v10/channels/123/messages?limit=5`);
  });

  it('sends interaction callbacks and their webhooks straight to Discord', () => {
    const callback = `${apiUrl}/v10/interactions/1/token/callback`;
    const followUp = `${apiUrl}/v10/webhooks/2/token/messages/@original`;
    expect(restRequestUrl(callback, { apiUrl, restProxyUrl })).toBe(callback);
    expect(restRequestUrl(followUp, { apiUrl, restProxyUrl })).toBe(followUp);
  });

  it('changes nothing without a proxy', () => {
    const url = `${apiUrl}/v10/users/@me`;
    expect(restRequestUrl(url, { apiUrl, restProxyUrl: undefined })).toBe(url);
  });
});

describe('createDiscordClient', () => {
  it('tells discord.js a global limit Discord raised, so its own 50/s does not cap the bot', async () => {
    const raised = createDiscordClient({ apiUrl, globalRequestsPerSecond: 1_200 });
    const standard = createDiscordClient({ apiUrl });
    try {
      expect(raised.rest.options.globalRequestsPerSecond).toBe(1_200);
      expect(standard.rest.options.globalRequestsPerSecond).toBe(50);
    } finally {
      await Promise.all([raised.destroy(), standard.destroy()]);
    }
  });
});
