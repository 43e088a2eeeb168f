import type { FakeDiscord } from './fake-discord.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Plain HTTP against the fake's API v10 (no discord.js in between), for asserting exact
 * statuses, bodies and headers. Sends the bot token unless `token` is given (null: none).
 */
export async function raw(
  discord: FakeDiscord,
  method: string,
  path: string,
  options: { body?: unknown; form?: FormData; token?: string | null } = {},
): Promise<RawResponse> {
  const token = options.token === undefined ? discord.token : options.token;
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bot ${token}` };
  let body: string | FormData | undefined;
  if (options.form !== undefined) {
    body = options.form;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  // RequestInit's body takes no explicit undefined: a request without one leaves it out.
  const response = await fetch(`${discord.apiUrl}/v10${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: text === '' ? undefined : (JSON.parse(text) as unknown),
  };
}
