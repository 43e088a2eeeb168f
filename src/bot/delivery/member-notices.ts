import type { Message } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import type { DeliveryPort } from './delivery-port.ts';
import { DiscordMessageTarget } from './discord-message-target.ts';
import { allowedMentionsFor, type MessageTarget } from './message-target.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { refusalText, type Refusal } from '../i18n/member-text.ts';

/**
 * One notice per member per minute, whatever its kind: a member whose burst is refused for
 * several reasons (too fast, queue full) is told once, and a notice never becomes spam itself.
 */
const NOTICE_INTERVAL_MS = 60_000;
/** Members remembered for that; the least recently told are forgotten first. */
const NOTICE_MEMORY = 10_000;

/** What a notice reads of the member message it answers. */
export type NoticeSubject = Pick<Message, 'id' | 'author' | 'guild' | 'channel'>;

export interface MemberNoticesOptions {
  clock: Clock;
  logger: Logger;
  delivery: DeliveryPort;
  /** Where a notice about `message` is written; none where the bot cannot write. */
  targetOf?: (message: NoticeSubject) => MessageTarget | undefined;
}

/**
 * Short localized notes to a member about their message (rate limit, queue full, trouble): a
 * reply with no pings, at most one per member per minute, written through the delivery port
 * like every other channel write (paced by the channel's budget, retried after a 5xx).
 */
export class MemberNotices {
  private readonly told = new LruMap<string, number>(NOTICE_MEMORY);
  private readonly options: MemberNoticesOptions;

  constructor(options: MemberNoticesOptions) {
    this.options = options;
  }

  /** Resolves once the notice is written, given up on, or not due (told within the minute). */
  async tell(
    message: NoticeSubject,
    refusal: Refusal,
    settings: ScopeSettings | undefined,
  ): Promise<void> {
    const now = this.options.clock.now();
    const noticeKey = message.author.id;
    if ((this.told.get(noticeKey) ?? 0) > now) return;
    this.told.set(noticeKey, now + NOTICE_INTERVAL_MS);
    const target = (this.options.targetOf ?? channelOf)(message);
    if (target === undefined) return;
    const locale = resolveLocale(settings?.language, message.guild?.preferredLocale);
    const outcome = await this.options.delivery.to(target).post({
      content: refusalText(refusal, locale),
      allowedMentions: allowedMentionsFor({ allowUserMentions: false }),
      replyTo: message.id,
    });
    if (outcome.kind === 'failed') {
      this.options.logger.debug({ err: outcome.failure }, 'could not post a notice');
    }
  }
}

function channelOf(message: NoticeSubject): MessageTarget | undefined {
  return message.channel.isSendable() ? new DiscordMessageTarget(message.channel) : undefined;
}
