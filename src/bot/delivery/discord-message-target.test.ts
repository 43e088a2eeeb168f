import { DiscordAPIError, HTTPError, RESTJSONErrorCodes } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../core/errors.ts';
import { silentLogger } from '../../core/logger.ts';
import { DeliveryLedger } from './delivery-ledger.ts';
import { classify, WRITE_ROUTES } from './discord-message-target.ts';

const CHANNEL = '900000000000000001';
const MESSAGE = '800000000000000001';
const URL = `https://discord.com/api/v10/channels/${CHANNEL}/messages/${MESSAGE}`;

function apiError(code: number, status: number): DiscordAPIError {
  return new DiscordAPIError(
    { code, message: `refused (${code})` },
    code,
    status,
    'PATCH',
    URL,
    {},
  );
}

describe('a refused channel write', () => {
  it('is a DeliveryError that names its route, status, channel and message', () => {
    const error = classify(apiError(RESTJSONErrorCodes.MissingPermissions, 403), {
      route: WRITE_ROUTES.edit,
      channelId: CHANNEL,
      messageId: MESSAGE,
    });
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({
      code: 'delivery_forbidden',
      failure: 'forbidden',
      route: 'PATCH /channels/:id/messages/:id',
      status: 403,
      channelId: CHANNEL,
      messageId: MESSAGE,
      retryable: false,
    });
    expect(error.cause).toBeInstanceOf(DiscordAPIError);
  });

  it('is retryable after a 5xx that discord.js gave up on, with its status', () => {
    const error = classify(new HTTPError(503, 'Service Unavailable', 'POST', URL, {}), {
      route: WRITE_ROUTES.create,
      channelId: CHANNEL,
    });
    expect(error).toMatchObject({ failure: 'transient', status: 503, retryable: true });
    expect(error.messageId).toBeUndefined();
  });

  it('takes a DM closed to the bot (50007) as forbidden: nothing more is written there', () => {
    const error = classify(apiError(RESTJSONErrorCodes.CannotSendMessagesToThisUser, 400), {
      route: WRITE_ROUTES.create,
      channelId: CHANNEL,
    });
    expect(error).toMatchObject({ failure: 'forbidden', status: 400, retryable: false });
  });

  it("reaches the turn's DeliveryError with its request when it ends the delivery", () => {
    const ledger = new DeliveryLedger({ logger: silentLogger, channelId: CHANNEL });
    ledger.lose(
      classify(apiError(RESTJSONErrorCodes.MissingAccess, 403), {
        route: WRITE_ROUTES.create,
        channelId: CHANNEL,
        messageId: MESSAGE,
      }),
      { gap: true },
    );
    expect(ledger.result({ unfinished: false })).toMatchObject({
      code: 'delivery_forbidden',
      route: 'POST /channels/:id/messages',
      status: 403,
      channelId: CHANNEL,
      messageId: MESSAGE,
    });
  });
});
