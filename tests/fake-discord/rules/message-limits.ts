import { FIELD_ERRORS, type FormProblem } from './discord-error.ts';

/** Discord's documented message and embed limits (characters unless noted). */
export const DISCORD_LIMITS = {
  content: 2000,
  embedsPerMessage: 10,
  embedTotal: 6000,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  embedFieldName: 256,
  embedFieldValue: 1024,
  embedFooterText: 2048,
  embedAuthorName: 256,
  actionRows: 5,
  componentsPerRow: 5,
  customId: 100,
  stickersPerMessage: 3,
  attachmentsPerMessage: 10,
  /** Default upload limit for a bot, in bytes. */
  uploadBytes: 10 * 1024 * 1024,
} as const;

/** The message-shaped part of a create/edit body (before anything is known to be valid). */
export interface MessageBodyInput {
  content?: unknown;
  embeds?: unknown;
  components?: unknown;
  sticker_ids?: unknown;
}

interface EmbedInput {
  title?: unknown;
  description?: unknown;
  fields?: unknown;
  footer?: { text?: unknown };
  author?: { name?: unknown };
}

/** Content, embed and component limits; problems use Discord's 50035 paths and codes. */
export function validateMessageBody(body: MessageBodyInput): FormProblem[] {
  const problems: FormProblem[] = [];
  if (body.content !== undefined && body.content !== null) {
    if (typeof body.content !== 'string') {
      problems.push({ path: ['content'], error: FIELD_ERRORS.wrongType('string') });
    } else if (body.content.length > DISCORD_LIMITS.content) {
      problems.push({ path: ['content'], error: FIELD_ERRORS.maxLength(DISCORD_LIMITS.content) });
    }
  }
  if (Array.isArray(body.embeds)) problems.push(...validateEmbeds(body.embeds as unknown[]));
  if (Array.isArray(body.components)) {
    problems.push(...validateComponents(body.components as unknown[]));
  }
  if (
    Array.isArray(body.sticker_ids) &&
    body.sticker_ids.length > DISCORD_LIMITS.stickersPerMessage
  ) {
    problems.push({
      path: ['sticker_ids'],
      error: FIELD_ERRORS.maxLength(DISCORD_LIMITS.stickersPerMessage),
    });
  }
  return problems;
}

function validateEmbeds(embeds: unknown[]): FormProblem[] {
  const problems: FormProblem[] = [];
  if (embeds.length > DISCORD_LIMITS.embedsPerMessage) {
    problems.push({
      path: ['embeds'],
      error: FIELD_ERRORS.badLength(0, DISCORD_LIMITS.embedsPerMessage),
    });
  }
  let total = 0;
  embeds.forEach((raw, index) => {
    const embed = (raw ?? {}) as EmbedInput;
    const check = (path: (string | number)[], value: unknown, limit: number): void => {
      if (typeof value !== 'string') return;
      total += value.length;
      if (value.length > limit) {
        problems.push({ path: ['embeds', index, ...path], error: FIELD_ERRORS.maxLength(limit) });
      }
    };
    check(['title'], embed.title, DISCORD_LIMITS.embedTitle);
    check(['description'], embed.description, DISCORD_LIMITS.embedDescription);
    check(['footer', 'text'], embed.footer?.text, DISCORD_LIMITS.embedFooterText);
    check(['author', 'name'], embed.author?.name, DISCORD_LIMITS.embedAuthorName);
    const fields = Array.isArray(embed.fields) ? (embed.fields as unknown[]) : [];
    if (fields.length > DISCORD_LIMITS.embedFields) {
      problems.push({
        path: ['embeds', index, 'fields'],
        error: FIELD_ERRORS.maxLength(DISCORD_LIMITS.embedFields),
      });
    }
    fields.forEach((rawField, fieldIndex) => {
      const field = (rawField ?? {}) as { name?: unknown; value?: unknown };
      for (const [key, limit] of [
        ['name', DISCORD_LIMITS.embedFieldName],
        ['value', DISCORD_LIMITS.embedFieldValue],
      ] as const) {
        const value = field[key];
        if (typeof value !== 'string' || value.length === 0) {
          problems.push({
            path: ['embeds', index, 'fields', fieldIndex, key],
            error: FIELD_ERRORS.required(),
          });
        } else {
          check(['fields', fieldIndex, key], value, limit);
        }
      }
    });
  });
  if (total > DISCORD_LIMITS.embedTotal) {
    problems.push({
      path: ['embeds'],
      error: {
        code: 'MAX_EMBED_SIZE_EXCEEDED',
        message: `Embed size exceeds maximum size of ${DISCORD_LIMITS.embedTotal}`,
      },
    });
  }
  return problems;
}

/** Classic action rows only; Components V2 layouts are accepted as sent. */
function validateComponents(components: unknown[]): FormProblem[] {
  const rows = components.filter(
    (component) => (component as { type?: unknown } | null)?.type === 1,
  ) as { components?: unknown }[];
  const problems: FormProblem[] = [];
  if (rows.length > DISCORD_LIMITS.actionRows) {
    problems.push({
      path: ['components'],
      error: FIELD_ERRORS.badLength(1, DISCORD_LIMITS.actionRows),
    });
  }
  components.forEach((row, rowIndex) => {
    const children = (row as { components?: unknown } | null)?.components;
    if (!Array.isArray(children)) return;
    if (
      (row as { type?: unknown }).type === 1 &&
      children.length > DISCORD_LIMITS.componentsPerRow
    ) {
      problems.push({
        path: ['components', rowIndex, 'components'],
        error: FIELD_ERRORS.badLength(1, DISCORD_LIMITS.componentsPerRow),
      });
    }
    children.forEach((child, childIndex) => {
      const customId = (child as { custom_id?: unknown } | null)?.custom_id;
      if (typeof customId === 'string' && customId.length > DISCORD_LIMITS.customId) {
        problems.push({
          path: ['components', rowIndex, 'components', childIndex, 'custom_id'],
          error: FIELD_ERRORS.maxLength(DISCORD_LIMITS.customId),
        });
      }
    });
  });
  return problems;
}

/** True when nothing visible would be sent (Discord's 50006). */
export function isEmptyMessage(parts: {
  content: string;
  embeds: readonly unknown[];
  attachments: number;
  components: readonly unknown[];
  stickers: number;
  poll: boolean;
}): boolean {
  return (
    parts.content.trim() === '' &&
    parts.embeds.length === 0 &&
    parts.attachments === 0 &&
    parts.components.length === 0 &&
    parts.stickers === 0 &&
    !parts.poll
  );
}
