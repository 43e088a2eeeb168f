import type { RouteDefinition } from '../http/router.ts';
import { DiscordApiError } from '../rules/discord-error.ts';
import { DISCORD_LIMITS } from '../rules/message-limits.ts';
import type { FakeDiscordContext } from '../services/fake-discord-context.ts';
import { botRoute, json, objectBody, visibleChannel } from './route-helpers.ts';

/** Where the fake takes the PUT of an announced file (Discord's is a cloud storage host). */
export const UPLOAD_PATH_PREFIX = '/upload/';

/**
 * The upload flow Discord's own clients use for voice messages and large files: POST
 * /channels/{id}/attachments announces files (`files[]`: id, filename, file_size) and answers
 * an `upload_url` and `upload_filename` for each; the bytes are PUT to the URL; a message then
 * names each file by `attachments[].uploaded_filename`.
 */
export function uploadRoutes(context: FakeDiscordContext): RouteDefinition[] {
  const { world } = context;
  return [
    botRoute('POST', '/channels/:channelId/attachments', (request) => {
      const channelId = request.params.channelId ?? '';
      visibleChannel(context, channelId);
      const files = objectBody(request).files;
      if (!Array.isArray(files) || files.length === 0) {
        throw DiscordApiError.invalidFormBody([
          {
            path: ['files'],
            error: { code: 'BASE_TYPE_REQUIRED', message: 'This field is required' },
          },
        ]);
      }
      const attachments = (
        files as Array<{ id?: unknown; filename?: unknown; file_size?: unknown }>
      ).map((file) => {
        const filename = typeof file.filename === 'string' ? file.filename : 'file';
        const fileSize = typeof file.file_size === 'number' ? file.file_size : 0;
        if (fileSize > DISCORD_LIMITS.uploadBytes) {
          throw new DiscordApiError({
            status: 413,
            code: 40005,
            message: 'Request entity too large',
          });
        }
        const uploadFilename = `${world.ids.next()}/${encodeURIComponent(filename)}`;
        world.pendingUploads.set(uploadFilename, {
          channelId,
          filename,
          fileSize,
          data: undefined,
        });
        return {
          id: file.id,
          upload_url: `${context.payloads.origin}${UPLOAD_PATH_PREFIX}${uploadFilename}`,
          upload_filename: uploadFilename,
        };
      });
      return json({ attachments });
    }),
  ];
}

/** Takes the PUT of an announced file; false when nothing was announced under that name. */
export function acceptUpload(context: FakeDiscordContext, path: string, data: Buffer): boolean {
  const uploadFilename = path.slice(UPLOAD_PATH_PREFIX.length);
  const pending = context.world.pendingUploads.get(uploadFilename);
  if (pending === undefined || data.length !== pending.fileSize) return false;
  pending.data = data;
  return true;
}
