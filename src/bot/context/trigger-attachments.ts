import type { ImagePart, TextPart } from '../../core/chat.ts';
import type { Logger } from '../../core/logger.ts';
import type { InboundAttachment } from '../client/inbound-message.ts';

/** Limits for attachments of the message being answered. */
export const ATTACHMENT_LIMITS = Object.freeze({
  imageBytes: 5 * 1024 * 1024,
  imagesPerTurn: 4,
  textBytes: 100 * 1024,
  textCharacters: 20_000,
  timeoutMs: 10_000,
});

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
const TEXT_EXTENSIONS =
  /\.(txt|md|markdown|csv|json|ya?ml|toml|ini|log|xml|html?|css|js|ts|tsx|jsx|py|rb|go|rs|java|kt|c|h|cpp|hpp|cs|php|sh|sql|lua)$/i;

export type Download = (
  url: string,
  options: { maxBytes: number; signal: AbortSignal },
) => Promise<Uint8Array>;

/**
 * Turns the attachments of the messages being answered into model input: images for a
 * vision-capable model (downloaded and sent inline, since not every provider fetches URLs),
 * small text files inlined with caps; anything else is only noted (by the message label).
 */
export async function attachmentParts(options: {
  attachments: readonly InboundAttachment[];
  vision: boolean;
  download: Download;
  logger: Logger;
  signal: AbortSignal;
}): Promise<Array<TextPart | ImagePart>> {
  const parts: Array<TextPart | ImagePart> = [];
  let images = 0;
  for (const attachment of options.attachments) {
    const type = attachment.contentType?.split(';')[0]?.trim().toLowerCase();
    try {
      if (
        options.vision &&
        type !== undefined &&
        IMAGE_TYPES.has(type) &&
        images < ATTACHMENT_LIMITS.imagesPerTurn
      ) {
        if (attachment.size > ATTACHMENT_LIMITS.imageBytes) continue;
        const bytes = await options.download(attachment.url, {
          maxBytes: ATTACHMENT_LIMITS.imageBytes,
          signal: options.signal,
        });
        parts.push({ type: 'image', mediaType: type, data: Buffer.from(bytes).toString('base64') });
        images += 1;
      } else if (isText(attachment, type) && attachment.size <= ATTACHMENT_LIMITS.textBytes) {
        const bytes = await options.download(attachment.url, {
          maxBytes: ATTACHMENT_LIMITS.textBytes,
          signal: options.signal,
        });
        const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
        const shown =
          text.length > ATTACHMENT_LIMITS.textCharacters
            ? `${text.slice(0, ATTACHMENT_LIMITS.textCharacters)}\n[…truncated]`
            : text;
        parts.push({ type: 'text', text: `[content of ${attachment.name}]\n${shown}` });
      }
    } catch (error) {
      options.logger.debug({ err: error, attachment: attachment.name }, 'attachment skipped');
    }
  }
  return parts;
}

function isText(attachment: InboundAttachment, type: string | undefined): boolean {
  return (
    (type !== undefined && (type.startsWith('text/') || type === 'application/json')) ||
    TEXT_EXTENSIONS.test(attachment.name)
  );
}

/** Downloads with a byte cap and a time limit (Discord's CDN, or the test server). */
export const fetchDownload: Download = async (url, options) => {
  const signal = AbortSignal.any([
    options.signal,
    AbortSignal.timeout(ATTACHMENT_LIMITS.timeoutMs),
  ]);
  const response = await fetch(url, { signal, redirect: 'follow' });
  if (!response.ok || response.body === null)
    throw new Error(`download failed with ${response.status}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > options.maxBytes) {
      await reader.cancel();
      throw new Error('attachment too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
};
