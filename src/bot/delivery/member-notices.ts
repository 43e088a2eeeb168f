import type { Message } from 'discord.js';
import type { Clock } from '../../core/clock.ts';
import type { Logger } from '../../core/logger.ts';
import { LruMap } from '../../core/lru-map.ts';
import type { ScopeSettings } from '../../core/settings.ts';
import { allowedMentionsFor } from './message-target.ts';
import { resolveLocale } from '../i18n/locale.ts';
import { translate, type MessageKey } from '../i18n/messages.ts';

/**
 * One notice per member per minute, whatever its kind: a member whose burst is refused for
 * several reasons (too fast, queue full) is told once, and a notice never becomes spam itself.
 */
const NOTICE_INTERVAL_MS = 60_000;
/** Members remembered for that; the least recently told are forgotten first. */
const NOTICE_MEMORY = 10_000;

/**
 * Short localized notes to a member about their message (rate limit, queue full, trouble): a
 * reply with no pings, at most one per member per minute.
 */
export class MemberNotices {
  private readonly told = new LruMap<string, number>(NOTICE_MEMORY);
  private readonly options: { clock: Clock; logger: Logger };

  constructor(options: MemberNotices['options']) {
    this.options = options;
  }

  async tell(
    message: Message,
    key: MessageKey,
    params: Record<string, string | number>,
    settings: ScopeSettings | undefined,
  ): Promise<void> {
    const now = this.options.clock.now();
    const noticeKey = message.author.id;
    if ((this.told.get(noticeKey) ?? 0) > now) return;
    this.told.set(noticeKey, now + NOTICE_INTERVAL_MS);
    const locale = resolveLocale(settings?.language, message.guild?.preferredLocale);
    try {
      await message.reply({
        content: translate(locale, key, params),
        allowedMentions: { ...allowedMentionsFor({ allowUserMentions: false }) },
      });
    } catch (error) {
      this.options.logger.debug({ err: error }, 'could not post a notice');
    }
  }
}
