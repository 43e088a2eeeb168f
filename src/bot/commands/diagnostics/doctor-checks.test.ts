import { GatewayIntentBits, PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../core/errors.ts';
import { doctorReport, type DoctorFacts } from './doctor-checks.ts';

const ALL_INTENTS =
  GatewayIntentBits.Guilds |
  GatewayIntentBits.GuildMessages |
  GatewayIntentBits.MessageContent |
  GatewayIntentBits.DirectMessages;
const ALL_PERMISSIONS =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.ReadMessageHistory;

const healthy: DoctorFacts = {
  intents: ALL_INTENTS,
  permissions: { kind: 'channel', bits: ALL_PERMISSIONS, isThread: false },
  database: { ok: true, latencyMs: 3.4 },
  provider: {
    kind: 'checked',
    result: { ok: true, provider: 'openai', modelId: 'gpt-5.4-mini', keySource: 'scope' },
    scopeKind: 'guild',
  },
  mcp: [],
};

/** `expect.stringContaining`, typed: the lint forbids assigning its `any`. */
const containing = (fragment: string): string => expect.stringContaining(fragment) as string;

function lines(facts: DoctorFacts, locale: 'en' | 'ja' = 'en') {
  return doctorReport(facts, locale).flatMap((section) => section.lines);
}

function failed(kind: ProviderError['kind'], keySource: 'scope' | 'operator' | 'none' = 'scope') {
  return {
    kind: 'checked' as const,
    scopeKind: 'guild' as const,
    result: {
      ok: false as const,
      provider: 'openai' as const,
      modelId: 'gpt-5.4-mini',
      keySource,
      error: new ProviderError({ kind, message: 'test', provider: 'openai' }),
    },
  };
}

describe('doctorReport', () => {
  it('passes a healthy setup with one line per intent, permission, database, key, model', () => {
    const report = lines(healthy);
    expect(report.every((line) => line.status === 'ok' || line.status === 'info')).toBe(true);
    expect(report.map((line) => line.text)).toEqual(
      expect.arrayContaining([
        'Message Content',
        'Attach Files',
        'Answers in 3 ms.',
        'OpenAI accepts this server’s key.',
        'Model `gpt-5.4-mini` exists.',
        'None configured.',
      ]),
    );
  });

  it('fails a missing Message Content intent and essential permission, warns on a useful one', () => {
    const report = lines({
      ...healthy,
      intents: ALL_INTENTS & ~GatewayIntentBits.MessageContent,
      permissions: {
        kind: 'channel',
        bits:
          ALL_PERMISSIONS & ~PermissionFlagsBits.AttachFiles & ~PermissionFlagsBits.SendMessages,
        isThread: false,
      },
    });
    expect(report).toContainEqual({
      status: 'fail',
      text: containing('turn on **Message Content Intent** in the Developer Portal'),
    });
    expect(report).toContainEqual({
      status: 'fail',
      text: 'Send Messages is missing: give my role this permission in this channel (channel settings → Permissions).',
    });
    expect(report).toContainEqual({
      status: 'warn',
      text: containing('Attach Files is missing'),
    });
  });

  it('lists all seven invite permissions, checking Send Messages in Threads only in a thread', () => {
    const bits = ALL_PERMISSIONS & ~PermissionFlagsBits.SendMessagesInThreads;
    const outside = lines({ ...healthy, permissions: { kind: 'channel', bits, isThread: false } });
    // Still listed (the invite asks for seven), as information on where it is checked.
    expect(outside.filter((line) => line.text.includes('Threads'))).toEqual([
      {
        status: 'info',
        text: 'Send Messages in Threads: needed only in threads, so checked there (run `/doctor` in a thread).',
      },
    ]);
    const inside = lines({ ...healthy, permissions: { kind: 'channel', bits, isThread: true } });
    expect(inside).toContainEqual({
      status: 'fail',
      text: containing('Send Messages in Threads is missing'),
    });
  });

  it('tells a rejected key, a missing key, an unknown model and an unanswered check apart', () => {
    expect(lines({ ...healthy, provider: failed('auth') })).toEqual(
      expect.arrayContaining([
        {
          status: 'fail',
          text: 'OpenAI rejects this server’s key: set a working one with `/config apikey`.',
        },
        { status: 'warn', text: 'Model `gpt-5.4-mini` not checked: the key has to work first.' },
      ]),
    );
    expect(lines({ ...healthy, provider: failed('auth', 'none') })).toContainEqual({
      status: 'fail',
      text: 'No API key for OpenAI: an admin can add one with `/config apikey`.',
    });
    expect(lines({ ...healthy, provider: failed('model', 'operator') })).toEqual(
      expect.arrayContaining([
        { status: 'ok', text: 'OpenAI accepts the bot operator’s key.' },
        {
          status: 'fail',
          text: 'Model `gpt-5.4-mini` does not exist at OpenAI: pick another with `/config model`.',
        },
      ]),
    );
    expect(lines({ ...healthy, provider: failed('timeout') })).toContainEqual({
      status: 'warn',
      text: 'Could not check OpenAI (no answer in time): try again in a minute.',
    });
  });

  it('reports the database down, a DM, a non-admin and MCP servers in every state, in Japanese too', () => {
    const state = { transport: 'stdio' as const, toolCount: 3, failures: 0, lastError: 'secret' };
    const report = lines(
      {
        ...healthy,
        permissions: { kind: 'dm' },
        database: { ok: false },
        provider: { kind: 'not-admin' },
        mcp: [
          {
            state: { ...state, name: 'files', status: 'ready', nextAttemptAt: undefined },
            enabledHere: true,
          },
          {
            state: {
              ...state,
              name: 'search',
              status: 'restarting',
              failures: 2,
              nextAttemptAt: 1_000_000,
            },
            enabledHere: false,
          },
          {
            state: { ...state, name: 'dead', status: 'stopped', nextAttemptAt: undefined },
            enabledHere: true,
          },
        ],
      },
      'ja',
    );
    expect(report).toEqual(
      expect.arrayContaining([
        { status: 'info', text: 'DMでは確認する権限はありません。' },
        { status: 'fail', text: containing('`DATABASE_URL`') },
        { status: 'info', text: 'ライブ確認は **サーバー管理** 権限を持つメンバーのみです。' },
        { status: 'ok', text: '`files`：準備完了、ツール 3 個' },
        { status: 'warn', text: containing('<t:1000:R>') },
        { status: 'fail', text: containing('`MCP_CONFIG`') },
      ]),
    );
    expect(report.find((line) => line.text.includes('search'))?.text).toContain('ここでは無効');
    expect(report.some((line) => line.text.includes('secret'))).toBe(false);
  });

  it('warns while stored keys wait for a reseal or open with no key, and is silent after', () => {
    const database = () =>
      doctorReport({ ...healthy, storedKeys: { pending: 3, unreadable: 1 } }, 'en')[2]!.lines;
    expect(database()).toEqual([
      expect.objectContaining({ status: 'ok' }),
      { status: 'warn', text: containing('3 stored API keys are still sealed under a previous') },
      { status: 'warn', text: containing('1 stored API keys open with no configured') },
    ]);
    const clean = doctorReport({ ...healthy, storedKeys: { pending: 0, unreadable: 0 } }, 'ja');
    expect(clean[2]!.lines).toHaveLength(1);
  });

  it('says a key stored for another provider must be set again', () => {
    expect(lines({ ...healthy, provider: { kind: 'key-other-provider' } })).toContainEqual({
      status: 'fail',
      text: containing('another provider'),
    });
  });
});

describe('the speech section', () => {
  function speechLines(speech: DoctorFacts['speech'], locale: 'en' | 'ja' = 'en') {
    const section = doctorReport({ ...healthy, speech }, locale).at(-1);
    return section?.lines;
  }

  it('is absent when the facts say nothing of speech, and says when it is off', () => {
    expect(doctorReport(healthy, 'en').map((section) => section.title)).not.toContain(
      'Speech (voice messages)',
    );
    expect(speechLines({ kind: 'off' })).toEqual([
      { status: 'info', text: containing('SPEECH_PROVIDER') },
    ]);
  });

  it('names each speech model that answers, and what to check for one that does not', () => {
    const report = speechLines({
      kind: 'checked',
      provider: '127.0.0.1:8000',
      models: [
        { role: 'hearing', model: 'Systran/faster-whisper-small', failure: undefined },
        { role: 'speaking', model: 'kokoro', failure: 'model' },
      ],
    });
    expect(report).toEqual([
      { status: 'ok', text: 'hearing: `Systran/faster-whisper-small` on 127.0.0.1:8000' },
      {
        status: 'fail',
        text: containing('speaking: `kokoro` on 127.0.0.1:8000 does not answer (model)'),
      },
    ]);
    const ja = speechLines({ kind: 'not-admin', provider: 'OpenAI' }, 'ja');
    expect(ja).toEqual([{ status: 'info', text: containing('OpenAI') }]);
  });
});
