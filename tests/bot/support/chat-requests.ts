import type { RecordedRequest } from '../../support/llm-stand-in/recorded-request.ts';

/** The chat requests the LLM stand-in received (model checks and lists are GETs). */
export function chatRequests(requests: readonly RecordedRequest[]): RecordedRequest[] {
  return requests.filter((request) => request.method === 'POST');
}

/** The names of the tools an OpenAI chat request offered the model. */
export function offeredTools(request: RecordedRequest | undefined): string[] {
  const tools = (request?.body as { tools?: Array<{ function?: { name?: string } }> }).tools;
  return (tools ?? []).map((tool) => tool.function?.name ?? '');
}
