import { DiscordApiError } from '../rules/discord-error.ts';
import type { UploadedFile } from '../services/message-body.ts';

export interface ParsedBody {
  body: unknown;
  files: UploadedFile[];
}

/**
 * Reads a request body as Discord does: JSON, or multipart/form-data with `payload_json` and
 * `files[n]` parts (parsed by the platform's own FormData implementation).
 */
export async function parseRequestBody(
  contentType: string | undefined,
  raw: Buffer,
): Promise<ParsedBody> {
  if (raw.length === 0) return { body: undefined, files: [] };
  const type = (contentType ?? '').toLowerCase();
  if (type.startsWith('multipart/form-data')) return parseMultipart(contentType ?? '', raw);
  try {
    return { body: JSON.parse(raw.toString('utf8')) as unknown, files: [] };
  } catch {
    throw new DiscordApiError({
      status: 400,
      code: 50109,
      message: 'The request body contains invalid JSON.',
    });
  }
}

async function parseMultipart(contentType: string, raw: Buffer): Promise<ParsedBody> {
  const request = new Request('http://fake-discord.invalid/upload', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: new Uint8Array(raw),
  });
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw new DiscordApiError({ status: 400, code: 50035, message: 'Invalid Form Body' });
  }
  const files: UploadedFile[] = [];
  let body: unknown;
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      if (name === 'payload_json') body = JSON.parse(value) as unknown;
      continue;
    }
    files.push({
      fieldName: name,
      filename: value.name,
      contentType: value.type === '' ? null : value.type,
      data: Buffer.from(await value.arrayBuffer()),
    });
  }
  return { body, files };
}
