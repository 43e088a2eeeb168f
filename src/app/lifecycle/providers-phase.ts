import type { Config } from '../config/config.ts';
import type { Logger } from '../../core/logger.ts';
import type { ModelCatalogOverrides } from '../../providers/model-catalog.ts';
import type { ProviderFactory } from '../../providers/provider-factory.ts';

/** The `providers` phase: the vendors' clients behind one factory, with the operator's catalogue. */
export async function createProviders(options: {
  config: Config;
  catalogOverrides: ModelCatalogOverrides;
  logger: Logger;
}): Promise<ProviderFactory> {
  const { config } = options;
  const { ModelCatalog } = await import('../../providers/model-catalog.ts');
  const { ProviderFactory } = await import('../../providers/provider-factory.ts');
  return new ProviderFactory({
    defaults: {
      defaultProvider: config.defaultProvider,
      defaultModel: config.defaultModel,
      providerKeys: config.providerKeys,
      providerBaseUrls: config.providerBaseUrls,
    },
    catalog: new ModelCatalog(options.catalogOverrides),
    logger: options.logger,
  });
}
