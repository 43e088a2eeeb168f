import { describe, expect, it } from 'vitest';
import {
  DeliveryError,
  ProviderError,
  SecretError,
  UserFacingError,
  type ProviderErrorKind,
} from '../../core/errors.ts';
import { commandText } from '../commands/command-text.ts';
import {
  describeCommandError,
  describeFailure,
  notConfigured,
  refusalText,
  stopAnswerText,
  type Refusal,
  type RefusalKind,
  type StopAnswer,
  CommandRefusal,
} from './member-text.ts';

const PROVIDER_BODY =
  '{"error":{"message":"Incorrect API key provided: sk-abc***xyz","type":"invalid_request_error"}}';

/** Every kind: a kind added to ProviderErrorKind without a line here is a type error. */
const EVERY_PROVIDER_KIND: Record<ProviderErrorKind, true> = {
  auth: true,
  rate_limit: true,
  quota: true,
  overloaded: true,
  network: true,
  timeout: true,
  model: true,
  context_overflow: true,
  content_filter: true,
  bad_request: true,
  unknown: true,
};
const PROVIDER_KINDS = Object.keys(EVERY_PROVIDER_KIND) as ProviderErrorKind[];

describe('describeFailure', () => {
  it('maps every provider error kind to a short localized text with an incident id, never the body', () => {
    for (const kind of PROVIDER_KINDS) {
      for (const locale of ['en', 'ja'] as const) {
        const failure = describeFailure(
          new ProviderError({ kind, message: PROVIDER_BODY }),
          locale,
        );
        expect(failure.text).not.toContain('sk-abc');
        expect(failure.text).not.toContain('invalid_request_error');
        expect(failure.text).toContain(failure.incidentId);
        expect(failure.text.length).toBeLessThan(300);
      }
    }
  });

  it('tells members how an admin fixes auth and quota errors', () => {
    expect(describeFailure(new ProviderError({ kind: 'auth', message: 'x' }), 'en').text).toContain(
      '/config apikey',
    );
    expect(
      describeFailure(new ProviderError({ kind: 'quota', message: 'x' }), 'ja').text,
    ).toContain('/config apikey');
  });

  it('offers Retry for transient and fixable failures but not for a safety block', () => {
    expect(
      describeFailure(new ProviderError({ kind: 'rate_limit', message: 'x' }), 'en').retryable,
    ).toBe(true);
    expect(
      describeFailure(new ProviderError({ kind: 'content_filter', message: 'x' }), 'en').retryable,
    ).toBe(false);
    expect(describeFailure(new SecretError('wrong_key', 'x'), 'en').text).toContain(
      '/config apikey',
    );
    const otherVendor = describeFailure(new SecretError('wrong_provider', 'x'), 'ja').text;
    expect(otherVendor).toContain('別のAIプロバイダー');
    expect(otherVendor).toContain('/config apikey');
  });

  it('uses the message of a user-facing error with its parameters, and hides anything else', () => {
    const tooLarge = describeFailure(
      new UserFacingError('error.message_too_large', { tokens: 123 }),
      'en',
    );
    expect(tooLarge.text).toContain('123');
    const crash = describeFailure(
      new TypeError('Cannot read properties of undefined (reading "x")'),
      'en',
    );
    expect(crash.text).not.toContain('Cannot read');
  });

  it('says in both languages that part of the reply did not reach Discord, with a Retry', () => {
    const failure = new DeliveryError('write_failed', 'HTTPError 503 on POST /channels/1/messages');
    const english = describeFailure(failure, 'en');
    expect(english.text).toContain("Discord didn't accept part of my reply");
    expect(english.text).not.toContain('HTTPError');
    expect(english.retryable).toBe(true);
    expect(describeFailure(failure, 'ja').text).toContain('返信の一部');
  });
});

const LOCALES = ['en', 'ja'] as const;

/** No message key, placeholder, stack or provider body ever reaches a member. */
function expectMemberText(text: string): void {
  expect(text.trim()).not.toBe('');
  expect(text).not.toMatch(/\b(?:error|note|command|stop)\.[a-z_]+\b/);
  expect(text).not.toMatch(/\{\w+\}/);
  expect(text).not.toContain('sk-abc');
  expect(text).not.toContain('invalid_request_error');
  expect(text).not.toMatch(/\bat \S+ \(/);
  expect(text.length).toBeLessThan(300);
}

/** One of each: adding a kind to Refusal without a sample here is a type error. */
const REFUSALS: { [Kind in RefusalKind]: Extract<Refusal, { kind: Kind }> } = {
  member_rate_limited: { kind: 'member_rate_limited', seconds: 12 },
  queue_full: { kind: 'queue_full' },
  budget_exhausted: {
    kind: 'budget_exhausted',
    who: 'member',
    spentTokens: 45_000,
    spentCost: 1_234_000_000,
    resetsInMs: 3 * 3_600_000 + 11 * 60_000 + 5_000,
  },
  storage_trouble: { kind: 'storage_trouble' },
  channel_unsupported: { kind: 'channel_unsupported' },
  retry_not_yours: { kind: 'retry_not_yours' },
  retry_expired: { kind: 'retry_expired' },
  retry_busy: { kind: 'retry_busy' },
  cooldown: { kind: 'cooldown', seconds: 7 },
  missing_permission: {
    kind: 'missing_permission',
    permission: { en: 'Manage Server', ja: 'サーバー管理' },
  },
  guild_only: { kind: 'guild_only' },
  settings_conflict: { kind: 'settings_conflict' },
  unknown_command: { kind: 'unknown_command' },
  stored_key_unusable: {
    kind: 'stored_key_unusable',
    error: new SecretError('wrong_provider', PROVIDER_BODY),
  },
  command: commandText({
    en: { taken: 'The name {name} is taken.' },
    ja: { taken: '{name} という名前は使われています。' },
  }).refusal('taken', { name: 'Mika' }),
};

const STOP_ANSWERS: readonly StopAnswer[] = [
  'stopped',
  'unconfirmed',
  'not-requester',
  'already-stopping',
  'no-live-turn',
  'finished',
];

describe('the one voice', () => {
  it('words every error family in en and ja, each language its own, never a body', () => {
    const errors = [
      ...PROVIDER_KINDS.map((kind) => new ProviderError({ kind, message: PROVIDER_BODY })),
      new DeliveryError('write_failed', PROVIDER_BODY, { route: 'POST /channels/:id/messages' }),
      new DeliveryError('forbidden', PROVIDER_BODY, { status: 403 }),
      new SecretError('wrong_key', PROVIDER_BODY),
      new SecretError('wrong_provider', PROVIDER_BODY),
      new UserFacingError('error.message_too_large', { tokens: 4096 }),
      new UserFacingError('note.restarted', {}, { retryable: true }),
      notConfigured(new ProviderError({ kind: 'auth', message: PROVIDER_BODY })),
      new Error(PROVIDER_BODY),
    ];
    for (const error of errors) {
      const [english, japanese] = LOCALES.map((locale) => describeFailure(error, locale).text);
      for (const text of [english, japanese]) expectMemberText(text ?? '');
      expect(japanese).not.toBe(english);
      expect(japanese).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    }
  });

  it('words every refusal kind and every stop answer in en and ja, without an incident id', () => {
    const texts = [
      ...Object.values(REFUSALS).map((refusal) =>
        LOCALES.map((locale) => refusalText(refusal, locale)),
      ),
      ...STOP_ANSWERS.map((answer) => LOCALES.map((locale) => stopAnswerText(answer, locale))),
    ];
    for (const [english = '', japanese = ''] of texts) {
      expectMemberText(english);
      expectMemberText(japanese);
      expect(japanese).not.toBe(english);
      expect(`${english}${japanese}`).not.toMatch(/[Ii]ncident|インシデント/);
    }
    expect(refusalText(REFUSALS.member_rate_limited, 'en')).toContain('12 s');
    expect(refusalText(REFUSALS.missing_permission, 'ja')).toContain('サーバー管理');
    expect(refusalText(REFUSALS.command, 'ja')).toBe('Mika という名前は使われています。');
    expect(refusalText(REFUSALS.stored_key_unusable, 'en')).toContain('/config apikey');
  });

  it('names what was spent of a budget and when it resets, for the server and for a member', () => {
    const member = REFUSALS.budget_exhausted;
    expect(refusalText(member, 'en')).toBe(
      'You have used your AI budget for today here: $1.23 and 45,000 tokens spent today. It resets at 00:00 UTC, in 3 h 12 min.',
    );
    expect(refusalText(member, 'ja')).toContain('3時間12分');
    const server = { ...member, who: 'server' as const, spentCost: 4_200_000 };
    expect(refusalText(server, 'en')).toMatch(/^This server .* \$0\.0042 and 45,000 tokens/);
  });

  it("answers a command's refusal in its words and anything else with an incident id", () => {
    const refused = describeCommandError(new CommandRefusal({ kind: 'guild_only' }), 'en');
    expect(refused).toEqual({
      text: 'This only works in a server channel.',
      incidentId: undefined,
    });
    const crashed = describeCommandError(new TypeError(PROVIDER_BODY), 'ja');
    expectMemberText(crashed.text);
    expect(crashed.incidentId).toMatch(/^[0-9a-f]{8}$/);
    expect(crashed.text).toContain(crashed.incidentId);
  });

  it('reads a missing key as "not set up yet", with no Retry to press', () => {
    const noKey = describeFailure(
      notConfigured(new ProviderError({ kind: 'auth', message: 'no API key' })),
      'en',
    );
    expect(noKey.text).toContain('No AI provider key is set up here yet');
    expect(noKey.retryable).toBe(false);
    const rejected = notConfigured(new ProviderError({ kind: 'auth', message: 'x', status: 401 }));
    expect(describeFailure(rejected, 'en').text).toContain('rejected');
  });
});
