import { GatewayIntentBits, PermissionFlagsBits } from 'discord.js';
import type { ProviderErrorKind } from '../../../core/errors.ts';
import type { ProviderId } from '../../../core/provider.ts';
import type { StoredKeyAudit } from '../../../db/api-key-reseal.ts';
import type { ProviderCheck } from '../../../providers/provider-factory.ts';
import type { McpServerState } from '../../../tools/mcp/mcp-server-connection.ts';
import type { Locale } from '../../i18n/locale.ts';
import { DISPLAY_NAMES, doctorText as text } from './doctor-texts.ts';
import { ESSENTIAL_PERMISSIONS, USEFUL_PERMISSIONS } from '../../client/invite-link.ts';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'info';
export interface CheckLine {
  status: CheckStatus;
  text: string;
}
export interface DoctorSection {
  title: string;
  lines: CheckLine[];
}

/** What `/doctor` found out, gathered by the command; this module only judges and words it. */
export interface DoctorFacts {
  /** The gateway intents the client connected with (a connection with them means they are granted). */
  intents: number;
  permissions: { kind: 'dm' } | { kind: 'channel'; bits: bigint; isThread: boolean };
  database: { ok: true; latencyMs: number } | { ok: false };
  provider:
    | {
        kind: 'checked';
        result: ProviderCheck;
        scopeKind: 'guild' | 'dm';
        /** The host of the operator's own server (OPENAI_BASE_URL), named instead of the vendor. */
        server?: string | undefined;
        /** What that server lists, when the model was not found there. */
        serverModels?: readonly string[] | undefined;
      }
    | { kind: 'not-admin' }
    | { kind: 'key-unreadable' }
    | { kind: 'key-other-provider' };
  mcp: ReadonlyArray<{ state: McpServerState; enabledHere: boolean }>;
  /** Stored API keys across the bot after a key rotation (gathered for admins only). */
  storedKeys?: StoredKeyAudit | undefined;
  /** The operator's speech service: off, or each of its models looked up (admins only). */
  speech?: SpeechFacts | undefined;
}

export type SpeechFacts =
  | { kind: 'off' }
  | { kind: 'not-admin'; provider: string }
  | {
      kind: 'checked';
      /** The vendor's name, or the host of the operator's own speech server. */
      provider: string;
      models: ReadonlyArray<{
        role: 'hearing' | 'speaking';
        model: string;
        /** Why the lookup failed; undefined when the model answered. */
        failure: ProviderErrorKind | undefined;
      }>;
    };

const REQUIRED_INTENTS = ['Guilds', 'GuildMessages', 'MessageContent', 'DirectMessages'] as const;
const SLOW_DATABASE_MS = 1_000;
const PROVIDER_NAMES: Record<ProviderId, string> = {
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  google: 'Google Gemini',
};

export const STATUS_ICONS: Record<CheckStatus, string> = {
  ok: '✅',
  warn: '⚠️',
  fail: '❌',
  info: '➖',
};

export function doctorReport(facts: DoctorFacts, locale: Locale): DoctorSection[] {
  return [
    { title: text.get(locale, 'gateway'), lines: intentLines(facts.intents, locale) },
    { title: text.get(locale, 'permissions'), lines: permissionLines(facts.permissions, locale) },
    {
      title: text.get(locale, 'database'),
      lines: [databaseLine(facts.database, locale), ...storedKeyLines(facts.storedKeys, locale)],
    },
    { title: text.get(locale, 'provider'), lines: providerLines(facts.provider, locale) },
    { title: text.get(locale, 'mcp'), lines: mcpLines(facts.mcp, locale) },
    ...(facts.speech === undefined
      ? []
      : [{ title: text.get(locale, 'speech'), lines: speechLines(facts.speech, locale) }]),
  ];
}

function speechLines(speech: SpeechFacts, locale: Locale): CheckLine[] {
  if (speech.kind === 'off') return [{ status: 'info', text: text.get(locale, 'speechOff') }];
  if (speech.kind === 'not-admin')
    return [{ status: 'info', text: text.get(locale, 'speechNotAdmin', speech) }];
  return speech.models.map(({ role, model, failure }) => {
    const params = {
      role: text.get(locale, role === 'hearing' ? 'speechHearing' : 'speechSpeaking'),
      model,
      provider: speech.provider,
    };
    return failure === undefined
      ? { status: 'ok', text: text.get(locale, 'speechOk', params) }
      : { status: 'fail', text: text.get(locale, 'speechFailed', { ...params, kind: failure }) };
  });
}

/** The name `/doctor` gives a provider. */
export function providerName(provider: ProviderId): string {
  return PROVIDER_NAMES[provider];
}

function intentLines(intents: number, locale: Locale): CheckLine[] {
  return REQUIRED_INTENTS.map((intent) => {
    const name = DISPLAY_NAMES[intent][locale];
    if ((intents & GatewayIntentBits[intent]) !== 0)
      return { status: 'ok', text: text.get(locale, 'intentOk', { intent: name }) };
    const key = intent === 'MessageContent' ? 'intentMissingContent' : 'intentMissing';
    return { status: 'fail', text: text.get(locale, key, { intent: name }) };
  });
}

function permissionLines(permissions: DoctorFacts['permissions'], locale: Locale): CheckLine[] {
  if (permissions.kind === 'dm')
    return [{ status: 'info', text: text.get(locale, 'dmPermissions') }];
  const essential = [
    ...ESSENTIAL_PERMISSIONS,
    ...(permissions.isThread ? (['SendMessagesInThreads'] as const) : []),
  ];
  const line = (
    name: keyof typeof PermissionFlagsBits & keyof typeof DISPLAY_NAMES,
    missing: CheckStatus,
  ) => {
    const permission = DISPLAY_NAMES[name][locale];
    return (permissions.bits & PermissionFlagsBits[name]) !== 0n
      ? { status: 'ok' as const, text: text.get(locale, 'permissionOk', { permission }) }
      : { status: missing, text: text.get(locale, 'permissionMissing', { permission }) };
  };
  // Outside a thread the seventh permission of the invite cannot matter here: say where it does.
  const threads = permissions.isThread
    ? []
    : [
        {
          status: 'info' as const,
          text: text.get(locale, 'threadPermissionElsewhere', {
            permission: DISPLAY_NAMES.SendMessagesInThreads[locale],
          }),
        },
      ];
  return [
    ...essential.map((name) => line(name, 'fail')),
    ...USEFUL_PERMISSIONS.map((name) => line(name, 'warn')),
    ...threads,
  ];
}

function databaseLine(database: DoctorFacts['database'], locale: Locale): CheckLine {
  if (!database.ok) return { status: 'fail', text: text.get(locale, 'databaseDown') };
  const ms = Math.round(database.latencyMs);
  return ms > SLOW_DATABASE_MS
    ? { status: 'warn', text: text.get(locale, 'databaseSlow', { ms }) }
    : { status: 'ok', text: text.get(locale, 'databaseOk', { ms }) };
}

/** Silent when every stored key is sealed under the current encryption key. */
function storedKeyLines(audit: StoredKeyAudit | undefined, locale: Locale): CheckLine[] {
  if (audit === undefined) return [];
  const lines: CheckLine[] = [];
  if (audit.pending > 0)
    lines.push({ status: 'warn', text: text.get(locale, 'keysPending', { count: audit.pending }) });
  if (audit.unreadable > 0) {
    const count = audit.unreadable;
    lines.push({ status: 'warn', text: text.get(locale, 'keysUnreadable', { count }) });
  }
  return lines;
}

function providerLines(provider: DoctorFacts['provider'], locale: Locale): CheckLine[] {
  if (provider.kind === 'not-admin')
    return [{ status: 'info', text: text.get(locale, 'keyNotAdmin') }];
  if (provider.kind === 'key-unreadable')
    return [{ status: 'fail', text: text.get(locale, 'keyUnreadable') }];
  if (provider.kind === 'key-other-provider')
    return [{ status: 'fail', text: text.get(locale, 'keyOtherProvider') }];
  const { result } = provider;
  const params = {
    provider: provider.server ?? PROVIDER_NAMES[result.provider],
    model: result.modelId,
    whose: text.get(
      locale,
      result.keySource === 'operator'
        ? 'whoseOperator'
        : provider.scopeKind === 'dm'
          ? 'whoseDm'
          : 'whoseScope',
    ),
  };
  const modelUnchecked: CheckLine = {
    status: 'warn',
    text: text.get(locale, 'modelUnchecked', params),
  };
  if (result.ok) {
    return [
      { status: 'ok', text: text.get(locale, 'keyOk', params) },
      { status: 'ok', text: text.get(locale, 'modelOk', params) },
    ];
  }
  const kind = result.error.kind;
  if (kind === 'auth') {
    const key = result.keySource === 'none' ? 'keyMissing' : 'keyRejected';
    return [{ status: 'fail', text: text.get(locale, key, params) }, modelUnchecked];
  }
  if (kind === 'quota')
    return [{ status: 'fail', text: text.get(locale, 'keyQuota', params) }, modelUnchecked];
  if (kind === 'model') {
    return [
      { status: 'ok', text: text.get(locale, 'keyOk', params) },
      { status: 'fail', text: text.get(locale, 'modelMissing', params) },
      ...serverModelLines(provider.serverModels, params.provider, locale),
    ];
  }
  const reason = text.get(locale, UNCHECKED_REASONS[kind] ?? 'reasonOther');
  return [
    { status: 'warn', text: text.get(locale, 'keyUnchecked', { ...params, reason }) },
    modelUnchecked,
  ];
}

/** Model names that fit in the line (an embed field holds 1,024 characters). */
const LISTED_SERVER_MODELS = 10;

/** Which models the operator's server has, and how to pick one, when the chosen one is not there. */
function serverModelLines(
  models: readonly string[] | undefined,
  server: string,
  locale: Locale,
): CheckLine[] {
  if (models === undefined || models.length === 0) return [];
  const shown = models.slice(0, LISTED_SERVER_MODELS).map((model) => `\`${model}\``);
  if (models.length > LISTED_SERVER_MODELS) shown.push('…');
  return [
    {
      status: 'info',
      text: text.get(locale, 'serverModels', { server, models: shown.join(', ') }),
    },
  ];
}

const UNCHECKED_REASONS: Partial<
  Record<
    ProviderErrorKind,
    'reasonTimeout' | 'reasonRateLimit' | 'reasonOverloaded' | 'reasonNetwork'
  >
> = {
  timeout: 'reasonTimeout',
  rate_limit: 'reasonRateLimit',
  overloaded: 'reasonOverloaded',
  network: 'reasonNetwork',
};

function mcpLines(servers: DoctorFacts['mcp'], locale: Locale): CheckLine[] {
  if (servers.length === 0) return [{ status: 'info', text: text.get(locale, 'mcpNone') }];
  return servers.map(({ state, enabledHere }) => {
    const params = {
      name: state.name,
      tools: state.toolCount,
      failures: state.failures,
      when:
        state.nextAttemptAt === undefined ? '—' : `<t:${Math.ceil(state.nextAttemptAt / 1000)}:R>`,
      off: enabledHere ? '' : text.get(locale, 'mcpOff'),
    };
    switch (state.status) {
      case 'ready':
        return { status: 'ok', text: text.get(locale, 'mcpReady', params) };
      case 'connecting':
        return { status: 'warn', text: text.get(locale, 'mcpConnecting', params) };
      case 'restarting':
        return { status: 'warn', text: text.get(locale, 'mcpRestarting', params) };
      case 'stopped':
        return { status: 'fail', text: text.get(locale, 'mcpStopped', params) };
    }
  });
}
