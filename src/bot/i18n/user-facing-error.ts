import { randomBytes } from 'node:crypto';
import { DeliveryError, ProviderError, SecretError, UserFacingError } from '../../core/errors.ts';
import type { Locale } from './locale.ts';
import { isMessageKey, translate, type MessageKey } from './messages.ts';

export interface UserFacingFailure {
  /** Short id shown to members and logged with the full error, to find one from the other. */
  incidentId: string;
  text: string;
  /** Whether offering a Retry button makes sense. */
  retryable: boolean;
}

export function newIncidentId(): string {
  return randomBytes(4).toString('hex');
}

/**
 * The one place where a failure becomes text in a channel: short, localized, with an incident
 * id that is also logged. Never a provider body, a stack or a key: they can carry secrets.
 */
export function describeFailure(error: unknown, locale: Locale): UserFacingFailure {
  const incidentId = newIncidentId();
  const { key, params, retryable } = classify(error);
  const text = `${translate(locale, key, params)}\n-# ${translate(locale, 'error.incident', { incident: incidentId })}`;
  return { incidentId, text, retryable };
}

/** A stored key that cannot be used: another encryption key, or another provider's key. */
export function secretErrorKey(error: SecretError): MessageKey {
  return error.code === 'secret_wrong_provider'
    ? 'error.secret_wrong_provider'
    : 'error.secret_unreadable';
}

function classify(error: unknown): {
  key: MessageKey;
  params: Readonly<Record<string, string | number>>;
  retryable: boolean;
} {
  if (error instanceof ProviderError) {
    // Auth/quota/model need an admin; a Retry after the fix is still useful, so keep it.
    return { key: `error.${error.kind}`, params: {}, retryable: error.kind !== 'content_filter' };
  }
  if (error instanceof DeliveryError && error.code === 'delivery_write_failed') {
    return { key: 'error.delivery', params: {}, retryable: true };
  }
  if (error instanceof SecretError)
    return { key: secretErrorKey(error), params: {}, retryable: true };
  if (error instanceof UserFacingError && isMessageKey(error.messageKey)) {
    return { key: error.messageKey, params: error.params, retryable: error.retryable };
  }
  return { key: 'error.unknown', params: {}, retryable: true };
}
