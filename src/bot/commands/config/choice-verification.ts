import { SecretError, type ProviderErrorKind } from '../../../core/errors.ts';
import type { ScopeSettings } from '../../../core/settings.ts';
import { openApiKey } from '../../../db/scope-settings-repository.ts';
import type { ProviderId } from '../../../core/provider.ts';
import type { ModelChoice } from '../../../providers/provider-factory.ts';
import type { CommandServices } from '../slash-command.ts';
import { CommandRefusal } from '../../i18n/member-text.ts';

/** Long enough for a local server to list its models, short of Discord's 3 s for autocomplete. */
export const SERVER_MODEL_LIST_TIMEOUT_MS = 2_000;

export type ChoiceVerification =
  | { ok: true; provider: ProviderId; modelId: string }
  | { ok: false; kind: ProviderErrorKind; provider: ProviderId; modelId: string };

/**
 * Asks the provider, live, whether a key and model work together (`ProviderFactory.check`).
 * A local OpenAI-compatible server without the "get one model" route answers 404, read as an
 * unknown model; there, a model the server lists is taken as found.
 */
export async function verifyChoice(
  services: CommandServices,
  choice: ModelChoice,
): Promise<ChoiceVerification> {
  const check = await services.providers.check(choice, new AbortController().signal);
  const { provider, modelId } = check;
  if (check.ok) return { ok: true, provider, modelId };
  const kind = check.error.kind;
  if (kind === 'model' && (await serverLists(services, choice, modelId)))
    return { ok: true, provider, modelId };
  return { ok: false, kind, provider, modelId };
}

async function serverLists(
  services: CommandServices,
  choice: ModelChoice,
  modelId: string,
): Promise<boolean> {
  try {
    const listed = await services.providers.listServerModels(choice, {
      signal: new AbortController().signal,
      timeoutMs: SERVER_MODEL_LIST_TIMEOUT_MS,
    });
    return listed?.includes(modelId) ?? false;
  } catch {
    return false;
  }
}

/**
 * The scope's own key, opened for a check. A key sealed under another encryption key, or
 * stored for another provider, cannot be opened: the admin is told to set it again, as a
 * failed reply would tell them.
 */
export function openScopeKey(
  services: CommandServices,
  settings: ScopeSettings,
): string | undefined {
  try {
    const { provider } = services.providers.target(settings);
    return openApiKey({ box: services.secretBox, settings, provider });
  } catch (error) {
    if (error instanceof SecretError)
      throw new CommandRefusal({ kind: 'stored_key_unusable', error });
    throw error;
  }
}
