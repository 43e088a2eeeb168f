import { UserFacingError } from '../../core/errors.ts';
import type { Logger } from '../../core/logger.ts';
import type { SpeechService } from '../../core/speech.ts';
import { readOggOpus } from '../../providers/speech/ogg-opus-file.ts';
import type { InboundMessage, InboundVoice } from '../client/inbound-message.ts';
import type { ChannelHistory } from '../context/channel-history.ts';
import type { Download } from '../context/trigger-attachments.ts';
import type { AcceptedMessage } from '../intake/accepted-message.ts';

/** OpenAI's upload limit for a transcription; a Discord voice message is far below it. */
const MAX_VOICE_FILE_BYTES = 25 * 1024 * 1024;

/** What listening to a batch's voice messages gave: the batch with their text, or why not. */
export type HeardBatch =
  | { ok: true; batch: readonly AcceptedMessage[]; secondsHeard: number }
  | { ok: false; error: unknown };

/**
 * Turns each voice message of a batch into text: its transcript becomes the message's content,
 * so the record, `/export` and every later context read it like typed text; the channel's
 * history window gets it too. Too long a recording is refused with the limit before anything is
 * downloaded (Discord gives the length; a file without it is measured from its Ogg pages).
 */
export async function hearVoiceMessages(options: {
  batch: readonly AcceptedMessage[];
  speech?: SpeechService | undefined;
  download: Download;
  history: ChannelHistory;
  logger: Logger;
  signal: AbortSignal;
}): Promise<HeardBatch> {
  if (!options.batch.some((accepted) => accepted.message.voice !== undefined)) {
    return { ok: true, batch: options.batch, secondsHeard: 0 };
  }
  const batch: AcceptedMessage[] = [];
  let secondsHeard = 0;
  try {
    for (const accepted of options.batch) {
      const { voice } = accepted.message;
      if (voice === undefined) {
        batch.push(accepted);
        continue;
      }
      const heard = await hear({ ...options, message: accepted.message, voice });
      secondsHeard += heard.seconds;
      options.history.update(accepted.message.channelId, {
        id: accepted.message.id,
        content: heard.text,
      });
      batch.push({ ...accepted, message: { ...accepted.message, content: heard.text } });
    }
  } catch (error) {
    return { ok: false, error };
  }
  return { ok: true, batch, secondsHeard };
}

async function hear(options: {
  message: InboundMessage;
  voice: InboundVoice;
  speech?: SpeechService | undefined;
  download: Download;
  logger: Logger;
  signal: AbortSignal;
}): Promise<{ text: string; seconds: number }> {
  const { speech, voice, signal } = options;
  if (speech === undefined) throw new UserFacingError('error.voice_off');
  checkLength(voice.durationSeconds, speech.maxVoiceMessageSeconds);
  const audio = await options
    .download(voice.attachment.url, { maxBytes: MAX_VOICE_FILE_BYTES, signal })
    .catch((error: unknown) => {
      signal.throwIfAborted();
      throw new UserFacingError('error.voice_unreadable', {}, { cause: error, retryable: true });
    });
  const seconds = voice.durationSeconds ?? measure(audio);
  checkLength(seconds, speech.maxVoiceMessageSeconds);
  const transcript = await speech.speechToText.transcribe(
    {
      audio,
      filename: voice.attachment.name,
      mediaType: voice.attachment.contentType ?? 'audio/ogg',
      model: speech.transcriptionModel,
    },
    signal,
  );
  options.logger.info(
    { messageId: options.message.id, seconds, characters: transcript.text.length },
    'voice message transcribed',
  );
  return { text: transcript.text, seconds };
}

function checkLength(seconds: number | undefined, limit: number): void {
  if (seconds === undefined || seconds <= limit) return;
  throw new UserFacingError('error.voice_too_long', {
    seconds: Math.round(seconds),
    limit,
  });
}

function measure(audio: Uint8Array): number {
  try {
    return readOggOpus(audio).durationSeconds;
  } catch (error) {
    throw new UserFacingError('error.voice_unreadable', {}, { cause: error, retryable: false });
  }
}
