import type { AutocompleteInteraction } from 'discord.js';
import { ProviderError } from '../../../core/errors.ts';
import type { ProviderId } from '../../../core/provider.ts';
import { openApiKey } from '../../../db/scope-settings-repository.ts';
import type { CommandContext } from '../slash-command.ts';
import { SERVER_MODEL_LIST_TIMEOUT_MS } from './choice-verification.ts';

/** Discord shows at most 25 choices; names and values are at most 100 characters. */
const MAX_CHOICES = 25;
const MAX_CHOICE_LENGTH = 100;
/** A local server's model list changes when its operator pulls a model: rarely. */
const SERVER_LIST_TTL_MS = 60_000;
/** Past this many cached lists, expired ones are dropped. */
const PRUNE_ABOVE = 1_000;

/** The value of the "default" choice: clears the scope's model. */
export const DEFAULT_MODEL_CHOICE = 'default';

interface ListedModels {
  ids: readonly string[];
  at: number;
}

/**
 * Suggests models for `/config model` as the member types: the scope's provider's models from
 * the catalogue — or, for an OpenAI-compatible server of the operator's (OPENAI_BASE_URL), the
 * server's own list, kept a minute — filtered by what was typed. What was typed is offered
 * too: a model the list does not know can still be chosen.
 */
export class ModelAutocomplete {
  readonly #serverLists = new Map<string, ListedModels>();

  async suggest(interaction: AutocompleteInteraction, context: CommandContext): Promise<void> {
    const typed = interaction.options.getFocused().trim();
    const { providers } = context.services;
    const settings = await context.services.settings.get(context.scope.id);
    const { provider, modelId: defaultModel } = providers.target({
      provider: settings.provider,
      model: undefined,
    });
    const known =
      (await this.#serverList(context, provider)) ?? providers.catalog.modelIds(provider);
    const needle = typed.toLowerCase();
    const matching = known.filter((id) => id.toLowerCase().includes(needle));
    const choices = [...(typed !== '' && !known.includes(typed) ? [typed] : []), ...matching].map(
      (id) => ({ name: id, value: id }),
    );
    if (DEFAULT_MODEL_CHOICE.includes(needle)) {
      choices.unshift({ name: `default (${defaultModel})`, value: DEFAULT_MODEL_CHOICE });
    }
    await interaction.respond(
      choices
        .filter((choice) => choice.value.length <= MAX_CHOICE_LENGTH)
        .map((choice) => ({ ...choice, name: choice.name.slice(0, MAX_CHOICE_LENGTH) }))
        .slice(0, MAX_CHOICES),
    );
  }

  async #serverList(
    context: CommandContext,
    provider: ProviderId,
  ): Promise<readonly string[] | undefined> {
    const { services, scope } = context;
    const now = services.clock.now();
    const cacheKey = `${scope.id}:${provider}`;
    const cached = this.#serverLists.get(cacheKey);
    if (cached !== undefined && now - cached.at < SERVER_LIST_TTL_MS) return cached.ids;
    try {
      const settings = await services.settings.get(scope.id);
      const ids = await services.providers.listServerModels(
        {
          provider,
          model: undefined,
          // Refused (→ the catalogue) when the scope's key is another provider's.
          apiKey: openApiKey({ box: services.secretBox, settings, provider }),
        },
        { signal: new AbortController().signal, timeoutMs: SERVER_MODEL_LIST_TIMEOUT_MS },
      );
      if (ids === undefined || ids.length === 0) return undefined;
      this.#serverLists.set(cacheKey, { ids, at: now });
      if (this.#serverLists.size > PRUNE_ABOVE) this.#prune(now);
      return ids;
    } catch (error) {
      // The kind only: a vendor's error text may quote part of the key.
      const kind = error instanceof ProviderError ? error.kind : 'unknown';
      context.logger.debug({ kind }, 'server model list unavailable; using the catalogue');
      return undefined;
    }
  }

  #prune(now: number): void {
    for (const [key, listed] of this.#serverLists)
      if (now - listed.at >= SERVER_LIST_TTL_MS) this.#serverLists.delete(key);
  }
}
