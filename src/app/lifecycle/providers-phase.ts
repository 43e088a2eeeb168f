import type { Config } from '../config/config.ts';
import type { Logger } from '../../core/logger.ts';
import type { ModelCatalogOverrides } from '../../providers/model-catalog.ts';
import type { ProviderFactory, ServerModelDiscovery } from '../../providers/provider-factory.ts';

/** The `providers` phase: the vendors' clients behind one factory, with the operator's catalogue. */
export async function createProviders(options: {
  config: Config;
  catalogOverrides: ModelCatalogOverrides;
  logger: Logger;
}): Promise<ProviderFactory> {
  const { config } = options;
  const { ModelCatalog } = await import('../../providers/model-catalog.ts');
  const { ProviderFactory } = await import('../../providers/provider-factory.ts');
  const factory = new ProviderFactory({
    defaults: {
      defaultProvider: config.defaultProvider,
      defaultModel: config.defaultModel,
      providerKeys: config.providerKeys,
      providerBaseUrls: config.providerBaseUrls,
    },
    catalog: new ModelCatalog(options.catalogOverrides),
    logger: options.logger,
  });
  const discovery = await factory.discoverServerDefault({
    signal: new AbortController().signal,
    timeoutMs: SERVER_MODELS_TIMEOUT_MS,
  });
  logDiscovery(discovery, options.logger);
  return factory;
}

/** A local server that is still loading answers within this; a dead one is reported, not waited for. */
const SERVER_MODELS_TIMEOUT_MS = 5_000;
/** Enough model names to choose from in one log line. */
const LISTED_MODELS = 10;

/** What the operator learns at start about the models of their OpenAI-compatible server. */
function logDiscovery(discovery: ServerModelDiscovery, logger: Logger): void {
  switch (discovery.kind) {
    case 'not-needed':
      return;
    case 'one':
      logger.info(
        { server: discovery.server, model: discovery.model },
        `the server at ${discovery.server} has one model, ${discovery.model}: it is the default`,
      );
      return;
    case 'several': {
      const shown = discovery.models.slice(0, LISTED_MODELS);
      logger.warn(
        { server: discovery.server, models: shown, count: discovery.models.length },
        `the server at ${discovery.server} has ${discovery.models.length} models (${shown.join(', ')}): ` +
          `pick the default with DEFAULT_MODEL in .env (e.g. DEFAULT_MODEL=${shown[0] ?? ''}) and restart, ` +
          'or a server admin picks one with /config model',
      );
      return;
    }
    case 'none':
      logger.warn(
        { server: discovery.server },
        `the server at ${discovery.server} lists no models: add one there (Ollama: ollama pull <model>), then restart or set DEFAULT_MODEL`,
      );
      return;
    case 'unreachable':
      logger.warn(
        { server: discovery.server, kind: discovery.error.kind },
        `could not ask the server at ${discovery.server} for its models (${discovery.error.kind}): is it running at OPENAI_BASE_URL? Set DEFAULT_MODEL to skip this`,
      );
  }
}
