import { DeliveryError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { ChannelWriter } from './delivery-port.ts';
import { allowedMentionsFor } from './message-target.ts';
import type { Locale } from '../i18n/locale.ts';
import { describeFailure } from '../i18n/member-text.ts';
import { translate } from '../i18n/messages.ts';

/** The Retry button's custom id: this prefix, then the id of the member message to re-ask. */
export const RETRY_BUTTON_PREFIX = 'retry:';

/**
 * A short localized message with an incident id (also logged) and, when useful, a Retry button,
 * written through the channel's writer (paced, retried) like the reply it stands for.
 */
export async function postFailureNotice(options: {
  error: unknown;
  /** The member message the notice answers (and a Retry re-asks). */
  replyTo: string;
  writer: ChannelWriter;
  locale: Locale;
  logger: Logger;
  /**
   * false when the notice tells of a normal event, not a fault (a reply cut off by a restart):
   * the caller logs it as such, without a warning and a stack.
   */
  logAsFailure?: boolean;
}): Promise<void> {
  const failure = describeFailure(options.error, options.locale);
  if (options.logAsFailure !== false) {
    options.logger.warn({ err: options.error, incidentId: failure.incidentId }, 'turn failed');
  }
  if (!canPostIn(options.error)) return;
  const outcome = await options.writer.post({
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
  if (outcome.kind === 'failed') {
    options.logger.warn(
      { err: outcome.failure, incidentId: failure.incidentId },
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
