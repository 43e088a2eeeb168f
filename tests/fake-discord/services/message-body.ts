import {
  MessageFlags,
  type APIEmbed,
  type APIMessageTopLevelComponent,
} from 'discord-api-types/v10';
import { DiscordApiError, type FormProblem } from '../rules/discord-error.ts';
import { DISCORD_LIMITS } from '../rules/message-limits.ts';
import type { AttachmentRecord } from '../state/records.ts';
import type { World } from '../state/world.ts';

/** The JSON body of a message create or edit (or an interaction callback's `data`). */
export interface MessageBody {
  content?: unknown;
  embeds?: unknown;
  components?: unknown;
  allowed_mentions?: unknown;
  message_reference?: unknown;
  flags?: unknown;
  sticker_ids?: unknown;
  tts?: unknown;
  nonce?: unknown;
  enforce_nonce?: unknown;
  attachments?: unknown;
  poll?: unknown;
}

/** A file part of a multipart request (`files[0]`, …). */
export interface UploadedFile {
  fieldName: string;
  filename: string;
  contentType: string | null;
  data: Buffer;
}

/** What `attachments[n]` of a create may say of a new file. */
interface AttachmentMetadata {
  id?: unknown;
  /** A file uploaded beforehand (POST /channels/{id}/attachments, then PUT). */
  uploaded_filename?: unknown;
  filename?: unknown;
  description?: unknown;
  duration_secs?: unknown;
  waveform?: unknown;
}

/** Flags a create may set; EPHEMERAL only through interactions (added by the caller). */
export const SETTABLE_FLAGS =
  MessageFlags.SuppressEmbeds |
  MessageFlags.SuppressNotifications |
  MessageFlags.IsVoiceMessage |
  MessageFlags.IsComponentsV2;

export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function embedsOf(value: unknown): APIEmbed[] {
  return Array.isArray(value) ? (value as APIEmbed[]) : [];
}

export function componentsOf(value: unknown): APIMessageTopLevelComponent[] {
  return Array.isArray(value) ? (value as APIMessageTopLevelComponent[]) : [];
}

export function flagsOf(value: unknown): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : 0;
}

/**
 * The attachments a message ends up with: files referenced by `attachments[].id` (the index
 * in `files[n]`), or every uploaded file when no metadata was sent; on edit, existing
 * attachments listed by snowflake id are kept.
 */
export function resolveAttachments(options: {
  body: MessageBody;
  files: readonly UploadedFile[];
  existing: readonly AttachmentRecord[];
  world: World;
  channelId: string;
}): AttachmentRecord[] {
  const { body, files, existing, world, channelId } = options;
  for (const file of files) {
    if (file.data.length > DISCORD_LIMITS.uploadBytes) {
      throw new DiscordApiError({ status: 413, code: 40005, message: 'Request entity too large' });
    }
  }
  const upload = (file: UploadedFile, entry: AttachmentMetadata = {}): AttachmentRecord => {
    const attachment = {
      id: world.ids.next(),
      filename: typeof entry.filename === 'string' ? entry.filename : file.filename,
      description: typeof entry.description === 'string' ? entry.description : null,
      contentType: contentTypeOf(file),
      data: file.data,
      durationSecs: typeof entry.duration_secs === 'number' ? entry.duration_secs : null,
      waveform: typeof entry.waveform === 'string' ? entry.waveform : null,
    };
    world.uploads.set(attachment.id, { channelId, attachment });
    return attachment;
  };
  const metadata = Array.isArray(body.attachments)
    ? (body.attachments as AttachmentMetadata[])
    : undefined;
  if (metadata === undefined) {
    return [...existing, ...files.map((file) => upload(file))];
  }
  const result: AttachmentRecord[] = [];
  const problems: FormProblem[] = [];
  metadata.forEach((entry, index) => {
    const id = String(entry.id);
    const kept = existing.find((attachment) => attachment.id === id);
    if (kept !== undefined) {
      result.push(kept);
      return;
    }
    const file =
      typeof entry.uploaded_filename === 'string'
        ? takeUploaded(world, { channelId, uploadFilename: entry.uploaded_filename })
        : files.find((candidate) => candidate.fieldName === `files[${id}]`);
    if (file === undefined) {
      problems.push({
        path: ['attachments', index],
        error: { code: 'ATTACHMENT_NOT_FOUND', message: 'Attachment data not found' },
      });
      return;
    }
    result.push(upload(file, entry));
  });
  if (problems.length > 0) throw DiscordApiError.invalidFormBody(problems);
  if (result.length > DISCORD_LIMITS.attachmentsPerMessage) {
    throw DiscordApiError.invalidFormBody([
      {
        path: ['attachments'],
        error: { code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 10 or fewer in length.' },
      },
    ]);
  }
  return result;
}

/**
 * Discord sniffs an Ogg file's type from its bytes, whatever the upload said (discord.js sends
 * `application/ogg` for a .ogg): an Ogg file is audio/ogg.
 */
function contentTypeOf(file: UploadedFile): string | null {
  if (file.data.subarray(0, 4).toString('latin1') === 'OggS') return 'audio/ogg';
  return file.contentType;
}

/** A file PUT to its upload URL in this channel, taken by the message that names it. */
function takeUploaded(
  world: World,
  options: { channelId: string; uploadFilename: string },
): UploadedFile | undefined {
  const pending = world.pendingUploads.get(options.uploadFilename);
  if (pending?.data === undefined || pending.channelId !== options.channelId) return undefined;
  world.pendingUploads.delete(options.uploadFilename);
  return {
    fieldName: options.uploadFilename,
    filename: pending.filename,
    contentType: null,
    data: pending.data,
  };
}
