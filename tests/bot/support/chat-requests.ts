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

/** The description an OpenAI chat request gave the model for one tool. */
export function offeredToolDescription(
  request: RecordedRequest | undefined,
  name: string,
): string | undefined {
  const body = request?.body as {
    tools?: Array<{ function?: { name?: string; description?: string } }>;
  };
  return body.tools?.find((tool) => tool.function?.name === name)?.function?.description;
}

/** The tool results (role `tool` messages) an OpenAI chat request carried, as text. */
export function toolResultTexts(request: RecordedRequest | undefined): string[] {
  const body = request?.body as { messages?: Array<{ role?: string; content?: unknown }> };
  return (body.messages ?? [])
    .filter((message) => message.role === 'tool')
    .map((message) => JSON.stringify(message.content));
}
