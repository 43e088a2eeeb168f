/**
 * Discord's voice UDP wire, as its voice servers speak it: IP discovery (74-byte request and
 * answer) and RTP packets of Opus under transport encryption `aead_aes256_gcm_rtpsize` — AES-256-
 * GCM whose additional data is the RTP header (with the extension header, when there is one),
 * whose nonce is a 32-bit counter sent in the packet's last four bytes (zero-padded to 12), and
 * whose ciphertext covers the extension body and the payload.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';

export const OPUS_PAYLOAD_TYPE = 0x78;
export const TRANSPORT_MODE = 'aead_aes256_gcm_rtpsize';
const AUTH_TAG_BYTES = 16;
const NONCE_BYTES = 4;
/** One-byte header extension profile (RFC 8285), as Discord's clients send. */
const EXTENSION_PROFILE = 0xbede;

export interface RtpPacket {
  sequence: number;
  timestamp: number;
  ssrc: number;
  /** The Opus packet (after transport decryption). */
  payload: Buffer;
}

/** The answer to an IP discovery request: the address and port the request came from. */
export function discoveryAnswer(
  request: Buffer,
  from: { address: string; port: number },
): Buffer | undefined {
  if (request.byteLength !== 74 || request.readUInt16BE(0) !== 1) return undefined;
  const answer = Buffer.alloc(74);
  answer.writeUInt16BE(2, 0);
  answer.writeUInt16BE(70, 2);
  answer.writeUInt32BE(request.readUInt32BE(4), 4);
  answer.write(from.address, 8, 'utf8');
  answer.writeUInt16BE(from.port, 72);
  return answer;
}

/**
 * Seals an Opus packet as Discord forwards a member's audio: with a one-element header extension
 * (as Discord's clients add), encrypted with the session's key.
 */
export function sealRtp(packet: RtpPacket, options: { key: Uint8Array; nonce: number }): Buffer {
  const header = Buffer.alloc(16);
  header[0] = 0x90; // version 2, extension bit
  header[1] = OPUS_PAYLOAD_TYPE;
  header.writeUInt16BE(packet.sequence & 0xffff, 2);
  header.writeUInt32BE(packet.timestamp >>> 0, 4);
  header.writeUInt32BE(packet.ssrc >>> 0, 8);
  header.writeUInt16BE(EXTENSION_PROFILE, 12);
  header.writeUInt16BE(1, 14);
  const extensionBody = Buffer.from([0x10, 0xff, 0x00, 0x00]);
  const nonce = Buffer.alloc(12);
  nonce.writeUInt32BE(options.nonce >>> 0, 0);
  const cipher = createCipheriv('aes-256-gcm', options.key, nonce);
  cipher.setAAD(header);
  const sealed = Buffer.concat([
    cipher.update(Buffer.concat([extensionBody, packet.payload])),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return Buffer.concat([header, sealed, nonce.subarray(0, NONCE_BYTES)]);
}

/** Opens a packet the bot sent; undefined for anything that is not a sealed Opus RTP packet. */
export function openRtp(message: Buffer, key: Uint8Array): RtpPacket | undefined {
  if (message.byteLength < 12 + AUTH_TAG_BYTES + NONCE_BYTES) return undefined;
  if (message[0] === undefined || message[0] >> 6 !== 2) return undefined;
  if (((message[1] ?? 0) & 0x7f) !== OPUS_PAYLOAD_TYPE) return undefined;
  const hasExtension = (message[0] & 0x10) !== 0;
  const headerBytes = hasExtension ? 16 : 12;
  const header = message.subarray(0, headerBytes);
  const nonce = Buffer.alloc(12);
  message.copy(nonce, 0, message.byteLength - NONCE_BYTES);
  const tagAt = message.byteLength - NONCE_BYTES - AUTH_TAG_BYTES;
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(header);
  decipher.setAuthTag(message.subarray(tagAt, tagAt + AUTH_TAG_BYTES));
  let payload = Buffer.concat([
    decipher.update(message.subarray(headerBytes, tagAt)),
    decipher.final(),
  ]);
  if (hasExtension) payload = payload.subarray(4 * message.readUInt16BE(14));
  return {
    sequence: message.readUInt16BE(2),
    timestamp: message.readUInt32BE(4),
    ssrc: message.readUInt32BE(8),
    payload,
  };
}
