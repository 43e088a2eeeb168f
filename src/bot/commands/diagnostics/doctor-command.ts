import {
  EmbedBuilder,
  IntentsBitField,
  InteractionContextType,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { ProviderError, SecretError } from '../../../core/errors.ts';
import type { ScopeSettings } from '../../../core/settings.ts';
import { auditStoredApiKeys, type StoredKeyAudit } from '../../../db/api-key-reseal.ts';
import { pingDatabase } from '../../../db/database.ts';
import { openApiKey } from '../../../db/scope-settings-repository.ts';
import type { ModelChoice } from '../../../providers/provider-factory.ts';
import { holdsPermission } from '../command-access.ts';
import { SERVER_MODEL_LIST_TIMEOUT_MS } from '../config/choice-verification.ts';
import { deferIfSlow, respond } from '../command-replies.ts';
import type { CommandContext, SlashCommand } from '../slash-command.ts';
import {
  doctorReport,
  providerName,
  STATUS_ICONS,
  type DoctorFacts,
  type DoctorSection,
  type SpeechFacts,
} from './doctor-checks.ts';
import { doctorText as text } from './doctor-texts.ts';

/** The database has this long to answer `select 1`. (The provider check has its own 10 s.) */
const DATABASE_TIMEOUT_MS = 5_000;
/** Each speech model lookup has as long as the provider check. */
const SPEECH_CHECK_TIMEOUT_MS = 10_000;
const FIELD_VALUE_LIMIT = 1_024;
/** The start of the instance id, as in the logs' `instanceId` (enough to tell processes apart). */
const INSTANCE_ID_SHOWN = 8;
const COLORS = { ok: 0x2ecc71, warn: 0xf1c40f, fail: 0xe74c3c } as const;

/**
 * `/doctor`: one ephemeral embed with a line per check — the gateway intents the client
 * connected with, the bot's permissions in this channel, the database (with latency), the
 * scope's provider key and model (one cheap live call), and each MCP server's state — each
 * failure saying what to do.
 *
 * Anyone may run it (it is read-only and the diagnostics cooldown bounds it); the live
 * provider call runs only for members with Manage Server (a DM's user for their own scope, the
 * bot's owners): others learn everything but whether the key works.
 */
export function doctorCommand(): SlashCommand {
  const builder = new SlashCommandBuilder()
    .setName('doctor')
    .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM);
  return {
    definition: text.describe(builder, 'description').toJSON(),
    category: 'diagnostics',
    async execute(interaction, context) {
      await deferIfSlow(interaction);
      const settings = await context.services.settings.get(context.scope.id);
      const [database, provider, storedKeys, speech] = await Promise.all([
        checkDatabase(context),
        checkProvider(interaction, context, settings),
        auditKeys(interaction, context),
        checkSpeech(interaction, context),
      ]);
      const facts: DoctorFacts = {
        intents: new IntentsBitField(interaction.client.options.intents).bitfield,
        permissions: interaction.inGuild()
          ? {
              kind: 'channel',
              bits: interaction.appPermissions.bitfield,
              isThread: interaction.channel?.isThread() ?? false,
            }
          : { kind: 'dm' },
        database,
        provider,
        mcp: mcpServers(context, settings),
        storedKeys,
        speech,
      };
      const sections = doctorReport(facts, context.locale);
      context.logger.info({ worst: worstOf(sections) }, 'doctor');
      const embed = embedOf(sections, context).setFooter({
        text: text.get(context.locale, 'answeredBy', {
          // DMs arrive on shard 0 (Discord's rule), so a DM's answer comes from there.
          shard: String(interaction.guild?.shardId ?? 0),
          shards: String(interaction.client.options.shardCount ?? 1),
          process: (context.services.instanceId ?? 'unknown').slice(0, INSTANCE_ID_SHOWN),
        }),
      });
      await respond(interaction, { embeds: [embed] });
    },
  };
}

async function checkDatabase(context: CommandContext): Promise<DoctorFacts['database']> {
  const { clock, db } = context.services;
  const startedAt = clock.now();
  const timeout = new AbortController();
  try {
    const answered = await Promise.race([
      pingDatabase(db).then(() => true),
      clock.sleep(DATABASE_TIMEOUT_MS, timeout.signal).then(() => false),
    ]);
    return answered ? { ok: true, latencyMs: clock.now() - startedAt } : { ok: false };
  } catch (error) {
    context.logger.warn({ err: error }, 'doctor: database check failed');
    return { ok: false };
  } finally {
    timeout.abort();
  }
}

/** Whether a key rotation left stored keys behind; admins only, like the live provider check. */
async function auditKeys(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<StoredKeyAudit | undefined> {
  if (!holdsPermission(interaction, context, 'ManageGuild')) return undefined;
  try {
    return await auditStoredApiKeys(context.services.db, context.services.secretBox);
  } catch (error) {
    context.logger.warn({ err: error }, 'doctor: stored key audit failed');
    return undefined;
  }
}

async function checkProvider(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
  settings: ScopeSettings,
): Promise<DoctorFacts['provider']> {
  if (!holdsPermission(interaction, context, 'ManageGuild')) return { kind: 'not-admin' };
  let apiKey: string | undefined;
  try {
    const { provider } = context.services.providers.target(settings);
    apiKey = openApiKey({ box: context.services.secretBox, settings, provider });
  } catch (error) {
    if (error instanceof SecretError && error.code === 'secret_wrong_provider')
      return { kind: 'key-other-provider' };
    if (error instanceof SecretError) return { kind: 'key-unreadable' };
    throw error;
  }
  const choice = { provider: settings.provider, model: settings.model, apiKey };
  const providers = context.services.providers;
  const result = await providers.check(choice, new AbortController().signal);
  const server = providers.serverName(result.provider);
  if (result.ok || result.error.kind !== 'model' || server === undefined)
    return { kind: 'checked', result, scopeKind: context.scope.kind, server };
  // A local server without the "get one model" route answers 404: its list is the truth.
  const serverModels = await serverModelList(context, choice);
  if (serverModels?.includes(result.modelId) === true) {
    const { provider, modelId, keySource } = result;
    return {
      kind: 'checked',
      result: { ok: true, provider, modelId, keySource },
      scopeKind: context.scope.kind,
      server,
    };
  }
  return { kind: 'checked', result, scopeKind: context.scope.kind, server, serverModels };
}

/** The speech models looked up (the cheapest calls), for admins; the rest learn it is on. */
async function checkSpeech(
  interaction: ChatInputCommandInteraction,
  context: CommandContext,
): Promise<SpeechFacts> {
  const { speech } = context.services;
  if (speech === undefined) return { kind: 'off' };
  const provider = speech.server ?? providerName(speech.provider);
  if (!holdsPermission(interaction, context, 'ManageGuild')) return { kind: 'not-admin', provider };
  const lookup = async (role: 'hearing' | 'speaking', model: string) => {
    try {
      await speech.speechToText.checkModel(model, AbortSignal.timeout(SPEECH_CHECK_TIMEOUT_MS));
      return { role, model, failure: undefined };
    } catch (error) {
      context.logger.warn({ err: error, model }, 'doctor: speech check failed');
      return {
        role,
        model,
        failure: error instanceof ProviderError ? error.kind : ('timeout' as const),
      };
    }
  };
  const models = await Promise.all([
    lookup('hearing', speech.transcriptionModel),
    lookup('speaking', speech.speechModel),
  ]);
  return { kind: 'checked', provider, models };
}

async function serverModelList(
  context: CommandContext,
  choice: ModelChoice,
): Promise<readonly string[] | undefined> {
  try {
    return await context.services.providers.listServerModels(choice, {
      signal: new AbortController().signal,
      timeoutMs: SERVER_MODEL_LIST_TIMEOUT_MS,
    });
  } catch {
    return undefined; // The check's own line already says what failed.
  }
}

function mcpServers(context: CommandContext, settings: ScopeSettings): DoctorFacts['mcp'] {
  const switches = context.services.tools.switches();
  return context.services.tools.mcpStates().map((state) => {
    const toggle = switches.find((entry) => entry.kind === 'mcp' && entry.name === state.name);
    const flag = toggle === undefined ? undefined : settings.featureFlags[toggle.flag];
    return {
      state,
      enabledHere: flag === undefined ? (toggle?.enabledByDefault ?? true) : flag === true,
    };
  });
}

function embedOf(sections: readonly DoctorSection[], context: CommandContext): EmbedBuilder {
  return new EmbedBuilder()
    .setTitle(text.get(context.locale, 'title'))
    .setColor(COLORS[worstOf(sections)])
    .addFields(
      sections.map((section) => ({
        name: section.title,
        value: clamp(
          section.lines.map((line) => `${STATUS_ICONS[line.status]} ${line.text}`).join('\n'),
        ),
      })),
    );
}

function worstOf(sections: readonly DoctorSection[]): 'ok' | 'warn' | 'fail' {
  const statuses = sections.flatMap((section) => section.lines.map((line) => line.status));
  if (statuses.includes('fail')) return 'fail';
  return statuses.includes('warn') ? 'warn' : 'ok';
}

/** Many MCP servers must not break the embed: a field value holds at most 1024 characters. */
function clamp(value: string): string {
  if (value.length <= FIELD_VALUE_LIMIT) return value;
  const cut = value.slice(0, FIELD_VALUE_LIMIT - 2);
  return `${cut.slice(0, Math.max(0, cut.lastIndexOf('\n')))}\n…`;
}
