import OpenAI from 'openai';
import { sdkLogger } from '../sdk-logger.ts';
import { DEFAULT_TIMEOUT_MS, type VendorModelOptions } from '../vendor-model-options.ts';

/**
 * Local OpenAI-compatible servers need no key, but the SDK refuses to start without one; the
 * placeholder is sent nowhere because the Authorization header is removed for keyless clients.
 */
const KEYLESS_PLACEHOLDER = 'no-key';

/** The OpenAI SDK client every OpenAI adapter (chat, speech) is built on. */
export function createOpenAIClient(
  options: Pick<VendorModelOptions, 'apiKey' | 'baseUrl' | 'logger' | 'timeoutMs' | 'fetch'>,
): OpenAI {
  const keyless = options.apiKey === undefined;
  // Every option is explicit so the SDK never falls back to reading the environment itself.
  return new OpenAI({
    apiKey: options.apiKey ?? KEYLESS_PLACEHOLDER,
    baseURL: options.baseUrl ?? 'https://api.openai.com/v1',
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    // Retries live in the retrying wrappers (RetryingChatModel, RetryingSpeech): the one place.
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    logger: sdkLogger(options.logger),
    logLevel: 'warn',
    ...(keyless ? { defaultHeaders: { Authorization: null } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
