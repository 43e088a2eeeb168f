/**
 * Error responses as each vendor really sends them (status, JSON body, headers), taken from
 * their API references and observed responses. The adapters' classifiers must recognise these.
 */
import type { ScriptFailureKind, StandInVendor } from './script.ts';

export interface VendorErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

type FailureOptions = { model: string; retryAfterSeconds?: number | undefined };
const JSON_HEADERS = { 'content-type': 'application/json' };

export function vendorError(
  vendor: StandInVendor,
  kind: Exclude<ScriptFailureKind, 'content_filter'>,
  options: FailureOptions,
): VendorErrorResponse {
  switch (vendor) {
    case 'openai':
      return openAIError(kind, options);
    case 'anthropic':
      return anthropicError(kind, options);
    case 'google':
      return geminiError(kind, options);
  }
}

function retryHeaders(options: FailureOptions, milliseconds: boolean): Record<string, string> {
  if (options.retryAfterSeconds === undefined) return {};
  const headers: Record<string, string> = { 'retry-after': String(options.retryAfterSeconds) };
  if (milliseconds) headers['retry-after-ms'] = String(options.retryAfterSeconds * 1000);
  return headers;
}

function openAIError(
  kind: Exclude<ScriptFailureKind, 'content_filter'>,
  options: FailureOptions,
): VendorErrorResponse {
  const body = (status: number, error: Record<string, unknown>, headers = {}) => ({
    status,
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify({ error: { param: null, ...error } }),
  });
  switch (kind) {
    case 'auth':
      return body(401, {
        message:
          'Incorrect API key provided: sk-test***1234. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      });
    case 'rate_limit':
      return body(
        429,
        {
          message: `Rate limit reached for ${options.model} in organization org-standin on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s.`,
          type: 'tokens',
          code: 'rate_limit_exceeded',
        },
        retryHeaders(options, true),
      );
    case 'quota':
      return body(429, {
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      });
    case 'overloaded':
      return body(503, {
        message: 'The engine is currently overloaded, please try again later.',
        type: 'server_error',
        code: null,
      });
    case 'timeout':
      return body(504, { message: 'Gateway timeout.', type: 'server_error', code: null });
    case 'model':
      return body(404, {
        message: `The model \`${options.model}\` does not exist or you do not have access to it.`,
        type: 'invalid_request_error',
        code: 'model_not_found',
      });
    case 'context_overflow':
      return body(400, {
        message: `This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.`,
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      });
    case 'bad_request':
      return body(400, {
        message:
          "Invalid type for 'messages[0].content': expected one of a string or array of objects.",
        type: 'invalid_request_error',
        param: 'messages[0].content',
        code: 'invalid_type',
      });
  }
}

function anthropicError(
  kind: Exclude<ScriptFailureKind, 'content_filter'>,
  options: FailureOptions,
): VendorErrorResponse {
  const body = (status: number, type: string, message: string, headers = {}) => ({
    status,
    headers: { ...JSON_HEADERS, 'request-id': 'req_standin', ...headers },
    body: JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_standin' }),
  });
  switch (kind) {
    case 'auth':
      return body(401, 'authentication_error', 'invalid x-api-key');
    case 'rate_limit':
      return body(
        429,
        'rate_limit_error',
        'This request would exceed the rate limit for your organization of 50,000 input tokens per minute.',
        retryHeaders(options, false),
      );
    case 'quota':
      return body(
        402,
        'billing_error',
        'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
      );
    case 'overloaded':
      return body(529, 'overloaded_error', 'Overloaded');
    case 'timeout':
      return body(504, 'timeout_error', 'Request timed out');
    case 'model':
      return body(404, 'not_found_error', `model: ${options.model}`);
    case 'context_overflow':
      return body(
        400,
        'invalid_request_error',
        'prompt is too long: 215021 tokens > 200000 maximum',
      );
    case 'bad_request':
      return body(
        400,
        'invalid_request_error',
        'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`.',
      );
  }
}

function geminiError(
  kind: Exclude<ScriptFailureKind, 'content_filter'>,
  options: FailureOptions,
): VendorErrorResponse {
  const body = (code: number, status: string, message: string, details?: unknown[]) => ({
    status: code,
    headers: JSON_HEADERS,
    body: JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } }),
  });
  const retryInfo =
    options.retryAfterSeconds === undefined
      ? []
      : [
          {
            '@type': 'type.googleapis.com/google.rpc.RetryInfo',
            retryDelay: `${options.retryAfterSeconds}s`,
          },
        ];
  const quotaFailure = (quotaId: string) => ({
    '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
    violations: [
      {
        quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
        quotaId,
        quotaDimensions: { location: 'global', model: options.model },
        quotaValue: '10',
      },
    ],
  });
  switch (kind) {
    case 'auth':
      return body(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
      ]);
    case 'rate_limit':
      return body(
        429,
        'RESOURCE_EXHAUSTED',
        'You exceeded your current quota, please check your plan and billing details.',
        [quotaFailure('GenerateRequestsPerMinutePerProjectPerModel-FreeTier'), ...retryInfo],
      );
    case 'quota':
      return body(
        429,
        'RESOURCE_EXHAUSTED',
        'You exceeded your current quota, please check your plan and billing details.',
        [quotaFailure('GenerateRequestsPerDayPerProjectPerModel-FreeTier'), ...retryInfo],
      );
    case 'overloaded':
      return body(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
    case 'timeout':
      return body(504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.');
    case 'model':
      return body(
        404,
        'NOT_FOUND',
        `models/${options.model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
      );
    case 'context_overflow':
      return body(
        400,
        'INVALID_ARGUMENT',
        'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      );
    case 'bad_request':
      return body(
        400,
        'INVALID_ARGUMENT',
        'Invalid JSON payload received. Unknown name "foo" at \'generation_config\': Cannot find field.',
      );
  }
}
