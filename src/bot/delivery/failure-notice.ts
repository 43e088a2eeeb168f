import { DeliveryError, ProviderError, UserFacingError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import { allowedMentionsFor, type MessageTarget } from './message-target.ts';
import type { Locale } from '../i18n/locale.ts';
import { translate } from '../i18n/messages.ts';
import { describeFailure } from '../i18n/user-facing-error.ts';

/** The Retry button's custom id: this prefix, then the id of the member message to re-ask. */
export const RETRY_BUTTON_PREFIX = 'retry:';

/** A short localized message with an incident id (also logged) and, when useful, a Retry button. */
export async function postFailureNotice(options: {
  error: unknown;
  /** The member message the notice answers (and a Retry re-asks). */
  replyTo: string;
  place: { target: MessageTarget };
  locale: Locale;
  logger: Logger;
}): Promise<void> {
  const failure = describeFailure(options.error, options.locale);
  options.logger.warn({ err: options.error, incidentId: failure.incidentId }, 'turn failed');
  if (!canPostIn(options.error)) return;
  try {
    await options.place.target.send({
      content: failure.text,
      allowedMentions: allowedMentionsFor({ allowUserMentions: false }),
      replyTo: options.replyTo,
      ...(failure.retryable
        ? {
            components: [
              {
                customId: `${RETRY_BUTTON_PREFIX}${options.replyTo}`,
                label: translate(options.locale, 'button.retry'),
              },
            ],
          }
        : {}),
    });
  } catch (error) {
    options.logger.warn(
      { err: error, incidentId: failure.incidentId },
      'could not post the failure notice',
    );
  }
}

/**
 * The channel is gone: there is nowhere to post. A 403 still gets one try — a permission taken
 * away for one write may be back, and one refused notice per failed turn cannot add up to
 * Discord's limit on refused requests.
 */
function canPostIn(error: unknown): boolean {
  return !(error instanceof DeliveryError && error.code === 'delivery_gone');
}

/** No key at all for the provider reads "not set up yet", not "your key was rejected". */
export function notConfigured(error: unknown): unknown {
  if (error instanceof ProviderError && error.kind === 'auth' && error.status === undefined) {
    return new UserFacingError('error.not_configured', {}, { cause: error });
  }
  return error;
}
