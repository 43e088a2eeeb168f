import {
  MessageFlags,
  RESTJSONErrorCodes,
  type APIEmbed,
  type APIMessageTopLevelComponent,
} from 'discord-api-types/v10';
import type { AttachmentRecord } from '../state/records.ts';
import { DiscordApiError } from './discord-error.ts';

/**
 * Discord's rules for a message with IS_VOICE_MESSAGE (1 << 13): nothing but one audio
 * attachment (no content, embeds, components or stickers: 50159), exactly one audio file
 * (50160) carrying `duration_secs` and `waveform` (50161). A voice message cannot be edited
 * (50162).
 */
export function checkVoiceMessage(message: {
  flags: number;
  content: string;
  embeds: readonly APIEmbed[];
  components: readonly APIMessageTopLevelComponent[];
  stickerIds: readonly string[];
  attachments: readonly AttachmentRecord[];
}): void {
  if ((message.flags & MessageFlags.IsVoiceMessage) === 0) return;
  if (
    message.content !== '' ||
    message.embeds.length > 0 ||
    message.components.length > 0 ||
    message.stickerIds.length > 0
  ) {
    throw voiceError(
      RESTJSONErrorCodes.VoiceMessagesDoNotSupportAdditionalContent,
      'Voice messages do not support additional content.',
    );
  }
  const [audio, ...others] = message.attachments;
  if (audio === undefined || others.length > 0 || !(audio.contentType ?? '').startsWith('audio/')) {
    throw voiceError(
      RESTJSONErrorCodes.VoiceMessagesMustHaveASingleAudioAttachment,
      'Voice messages must have a single audio attachment.',
    );
  }
  if (audio.durationSecs === null || audio.waveform === null) {
    throw voiceError(
      RESTJSONErrorCodes.VoiceMessagesMustHaveSupportingMetadata,
      'Voice messages must have supporting metadata.',
    );
  }
}

export function checkVoiceMessageEdit(flags: number): void {
  if ((flags & MessageFlags.IsVoiceMessage) !== 0) {
    throw voiceError(
      RESTJSONErrorCodes.VoiceMessagesCannotBeEdited,
      'Voice messages cannot be edited.',
    );
  }
}

function voiceError(code: number, message: string): DiscordApiError {
  return new DiscordApiError({ status: 400, code, message });
}
