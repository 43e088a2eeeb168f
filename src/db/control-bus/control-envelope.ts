import { z } from 'zod';
import { BotError } from '../../core/errors.ts';

/** The one PostgreSQL channel every control message travels on (topics are in the payload). */
export const CONTROL_CHANNEL = 'tomodachi_control';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
export const NOTIFY_PAYLOAD_LIMIT_BYTES = 7_999;

const envelopeSchema = z.object({ topic: z.string().min(1).max(100), payload: z.unknown() });

export type ControlEnvelope = z.infer<typeof envelopeSchema>;

/** The NOTIFY payload of a message; throws before sending what PostgreSQL would refuse. */
export function encodeEnvelope(topic: string, payload: unknown): string {
  const text = JSON.stringify({ topic, payload });
  if (Buffer.byteLength(text, 'utf8') > NOTIFY_PAYLOAD_LIMIT_BYTES) {
    throw new BotError(
      'control_message_too_large',
      `a "${topic}" control message is over ${NOTIFY_PAYLOAD_LIMIT_BYTES} bytes`,
    );
  }
  return text;
}

/** The message in a received payload, or undefined when it is not one (logged by the caller). */
export function decodeEnvelope(text: string): ControlEnvelope | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const result = envelopeSchema.safeParse(parsed);
  return result.success ? result.data : undefined;
}
