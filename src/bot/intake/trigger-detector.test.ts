import { describe, expect, it } from 'vitest';
import { defaultScopeSettings, type ScopeSettings } from '../../core/settings.ts';
import type { InboundMessage } from '../client/inbound-message.ts';
import { TriggerDetector } from './trigger-detector.ts';

const BOT = '100000000000000001';

function message(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    id: '200000000000000001',
    channelId: '300000000000000001',
    guildId: '400000000000000001',
    authorId: '500000000000000001',
    authorName: 'ann',
    authorIsBot: false,
    content: 'hello there',
    createdAt: 0,
    isDM: false,
    mentionsBot: false,
    repliesToBot: false,
    replyToMessageId: undefined,
    attachments: [],
    ...overrides,
  };
}

let botMessages = 0;
/** Another bot's message mentioning the bot, with a new id each time. */
function nextBotMessage(overrides: Partial<InboundMessage> = {}): InboundMessage {
  botMessages += 1;
  return message({
    id: String(600000000000000000n + BigInt(botMessages)),
    authorIsBot: true,
    mentionsBot: true,
    ...overrides,
  });
}

function settings(overrides: Partial<ScopeSettings> = {}): ScopeSettings {
  return { ...defaultScopeSettings('400000000000000001'), ...overrides };
}

describe('TriggerDetector', () => {
  it('answers mentions, replies and DMs out of the box', () => {
    const detector = new TriggerDetector(BOT);
    expect(detector.detect(message({ mentionsBot: true }), settings())).toBe('mention');
    expect(detector.detect(message({ repliesToBot: true }), settings())).toBe('reply');
    expect(detector.detect(message({ isDM: true, guildId: undefined }), settings())).toBe('dm');
    expect(detector.detect(message(), settings())).toBeUndefined();
  });

  it('ignores its own messages and other bots unless the scope allows bots', () => {
    const detector = new TriggerDetector(BOT);
    expect(
      detector.detect(message({ authorId: BOT, mentionsBot: true }), settings()),
    ).toBeUndefined();
    const fromBot = message({ authorIsBot: true, mentionsBot: true });
    expect(detector.detect(fromBot, settings())).toBeUndefined();
    expect(detector.detect(fromBot, settings({ featureFlags: { answerBots: true } }))).toBe(
      'mention',
    );
  });

  it('answers at most three bot messages in a row in a channel until a person writes', () => {
    const detector = new TriggerDetector(BOT);
    const allowed = settings({ featureFlags: { answerBots: true } });
    const fromBot = message({ authorIsBot: true, mentionsBot: true });
    const answered = () => detector.detect(nextBotMessage(), allowed);
    expect([answered(), answered(), answered(), answered(), answered()]).toEqual([
      'mention',
      'mention',
      'mention',
      undefined,
      undefined,
    ]);
    // Another channel has its own count.
    expect(detector.detect({ ...fromBot, channelId: '300000000000000009' }, allowed)).toBe(
      'mention',
    );
    // The bot's own replies do not reset it; a person's message does, addressed or not.
    detector.detect(message({ authorId: BOT }), allowed);
    expect(answered()).toBeUndefined();
    detector.detect(message(), allowed);
    expect([answered(), answered(), answered(), answered()]).toEqual([
      'mention',
      'mention',
      'mention',
      undefined,
    ]);
  });

  it('counts a bot message once however often it is heard (a backfill overlapping the gateway)', () => {
    const detector = new TriggerDetector(BOT);
    const allowed = settings({ featureFlags: { answerBots: true } });
    const first = nextBotMessage();
    const heard = [first, first, nextBotMessage(), nextBotMessage(), nextBotMessage()];
    expect(heard.map((bot) => detector.detect(bot, allowed))).toEqual([
      'mention',
      'mention',
      'mention',
      'mention',
      undefined,
    ]);
  });

  it('judges a message recovered after a restart by the same loop guard, and counts it', () => {
    const allowed = settings({ featureFlags: { answerBots: true } });
    // A fresh process: recovered messages whose reason did not survive (an every-N count) count.
    const restarted = new TriggerDetector(BOT);
    const unaddressed = () => nextBotMessage({ mentionsBot: false });
    expect([1, 2, 3].map(() => restarted.detectRecovered(unaddressed(), allowed))).toEqual([
      'mention',
      'mention',
      'mention',
    ]);
    expect(restarted.detect(nextBotMessage(), allowed)).toBeUndefined();
    expect(restarted.detectRecovered(nextBotMessage(), allowed)).toBeUndefined();
    // A person's recovered message resets the run, as a live one does.
    expect(restarted.detectRecovered(message(), allowed)).toBe('mention');
    expect(restarted.detect(nextBotMessage(), allowed)).toBe('mention');
    // With answer-bots off, a recovered bot message is not answered either.
    expect(new TriggerDetector(BOT).detectRecovered(nextBotMessage(), settings())).toBeUndefined();

    // A peer's claim recovered by a process that heard (and counted) the message live: one turn.
    const peer = new TriggerDetector(BOT);
    const [first, second, third] = [nextBotMessage(), nextBotMessage(), nextBotMessage()];
    for (const bot of [first, second, third]) expect(peer.detect(bot, allowed)).toBe('mention');
    expect(peer.detectRecovered(second, allowed)).toBe('mention');
    expect(peer.detect(nextBotMessage(), allowed)).toBeUndefined();
  });

  it('does not count a bot message it would not answer anyway', () => {
    const detector = new TriggerDetector(BOT);
    const allowed = settings({ featureFlags: { answerBots: true } });
    for (let index = 0; index < 5; index += 1)
      detector.detect(message({ authorIsBot: true }), allowed);
    expect(detector.detect(message({ authorIsBot: true, mentionsBot: true }), allowed)).toBe(
      'mention',
    );
  });

  it('answers trigger words and recompiles them when the settings version changes', () => {
    const detector = new TriggerDetector(BOT);
    expect(
      detector.detect(
        message({ content: 'hey tomo' }),
        settings({ triggerWords: ['tomo'], version: 1 }),
      ),
    ).toBe('trigger_word');
    expect(
      detector.detect(
        message({ content: 'hey tomo' }),
        settings({ triggerWords: ['mika'], version: 2 }),
      ),
    ).toBeUndefined();
  });

  it('answers every message in an auto-reply channel', () => {
    const detector = new TriggerDetector(BOT);
    const auto = settings({ autoReplyChannelIds: ['300000000000000001'] });
    expect(detector.detect(message(), auto)).toBe('auto_reply');
    expect(detector.detect(message({ channelId: '300000000000000002' }), auto)).toBeUndefined();
  });

  it('answers every Nth message since its last answer in the channel', () => {
    const detector = new TriggerDetector(BOT);
    const everyThree = settings({ autoReplyEveryN: 3 });
    const reasons = [1, 2, 3, 4, 5, 6].map(() => detector.detect(message(), everyThree));
    expect(reasons).toEqual([undefined, undefined, 'every_n', undefined, undefined, 'every_n']);
    detector.detect(message(), everyThree);
    detector.detect(message({ mentionsBot: true }), everyThree);
    expect(detector.detect(message(), everyThree)).toBeUndefined();
    expect(detector.detect(message(), everyThree)).toBeUndefined();
    expect(detector.detect(message(), everyThree)).toBe('every_n');
  });
});

describe('TriggerDetector memory', () => {
  it('remembers every-N counts for at most its capacity of channels', () => {
    const detector = new TriggerDetector(BOT, { channels: 2 });
    const everyThree = settings({ autoReplyEveryN: 3 });
    const inChannel = (channelId: string) => message({ channelId });
    detector.detect(inChannel('300000000000000001'), everyThree);
    detector.detect(inChannel('300000000000000001'), everyThree);
    detector.detect(inChannel('300000000000000002'), everyThree);
    detector.detect(inChannel('300000000000000003'), everyThree);
    // The first channel's count was forgotten: it starts over instead of answering now.
    expect(detector.detect(inChannel('300000000000000001'), everyThree)).toBeUndefined();
    expect(detector.retained().counters).toBeLessThanOrEqual(2);
    expect(detector.retained().botRuns).toBeLessThanOrEqual(2);
  });

  it('keeps compiled trigger words for at most its capacity of scopes, and still matches', () => {
    const detector = new TriggerDetector(BOT, { scopes: 2 });
    for (let index = 0; index < 5; index += 1) {
      const scoped = {
        ...settings({ triggerWords: ['tomo'] }),
        scopeId: String(400000000000000010n + BigInt(index)),
      };
      expect(detector.detect(message({ content: 'hey tomo' }), scoped)).toBe('trigger_word');
    }
    expect(detector.retained().matchers).toBe(2);
  });
});
