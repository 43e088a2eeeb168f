/**
 * The Ogg container (RFC 3533): pages of up to 255 lacing segments, each page checksummed.
 * Only what a one-stream Opus file needs: write pages, and read them back into packets.
 */

const CAPTURE = [0x4f, 0x67, 0x67, 0x53]; // "OggS"
const HEADER_BYTES = 27;
export const PAGE_FLAGS = Object.freeze({ continued: 0x01, first: 0x02, last: 0x04 });

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let index = 0; index < 256; index += 1) {
    let value = index << 24;
    for (let bit = 0; bit < 8; bit += 1)
      value = value & 0x80000000 ? (value << 1) ^ 0x04c11db7 : value << 1;
    table[index] = value >>> 0;
  }
  return table;
})();

function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes)
    crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ byte) & 0xff] ?? 0)) >>> 0;
  return crc;
}

export interface OggPage {
  flags: number;
  /** The granule position after the last packet that ends on this page (48 kHz samples for Opus). */
  granule: bigint;
  serial: number;
  sequence: number;
  /** Whole packets only: this writer never splits a packet across pages. */
  packets: readonly Uint8Array[];
}

/** One page's bytes, checksum included. */
export function writeOggPage(page: OggPage): Uint8Array {
  const lacing: number[] = [];
  for (const packet of page.packets) {
    let left = packet.byteLength;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  if (lacing.length > 255) throw new RangeError('too many packets for one Ogg page');
  const dataBytes = page.packets.reduce((sum, packet) => sum + packet.byteLength, 0);
  const bytes = new Uint8Array(HEADER_BYTES + lacing.length + dataBytes);
  const view = new DataView(bytes.buffer);
  bytes.set(CAPTURE, 0);
  bytes[4] = 0;
  bytes[5] = page.flags;
  view.setBigInt64(6, page.granule, true);
  view.setUint32(14, page.serial, true);
  view.setUint32(18, page.sequence, true);
  bytes[26] = lacing.length;
  bytes.set(lacing, HEADER_BYTES);
  let offset = HEADER_BYTES + lacing.length;
  for (const packet of page.packets) {
    bytes.set(packet, offset);
    offset += packet.byteLength;
  }
  view.setUint32(22, oggCrc(bytes), true);
  return bytes;
}

/** The lacing segments a packet of `bytes` takes. */
export function lacingSegments(bytes: number): number {
  return Math.floor(bytes / 255) + 1;
}

export interface ReadOggFile {
  packets: Uint8Array[];
  /** The last page's granule position. */
  lastGranule: bigint;
}

/**
 * The packets of a one-stream Ogg file, joined across pages. Throws a RangeError on a file that
 * is not Ogg, or whose checksum does not match.
 */
export function readOggPackets(file: Uint8Array): ReadOggFile {
  const packets: Uint8Array[] = [];
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  let partial: Uint8Array[] = [];
  let lastGranule = 0n;
  for (let offset = 0; offset < file.byteLength;) {
    if (!CAPTURE.every((byte, index) => file[offset + index] === byte))
      throw new RangeError(`no Ogg page at byte ${offset}`);
    const segments = file[offset + 26] ?? 0;
    const lacing = file.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + segments);
    const pageBytes = HEADER_BYTES + segments + lacing.reduce((sum, value) => sum + value, 0);
    checkCrc(file.subarray(offset, offset + pageBytes), view.getUint32(offset + 22, true));
    lastGranule = view.getBigInt64(offset + 6, true);
    let data = offset + HEADER_BYTES + segments;
    for (const size of lacing) {
      partial.push(file.subarray(data, data + size));
      data += size;
      if (size < 255) {
        packets.push(joinBytes(partial));
        partial = [];
      }
    }
    offset += pageBytes;
  }
  return { packets, lastGranule };
}

function checkCrc(page: Uint8Array, expected: number): void {
  const copy = page.slice();
  copy.fill(0, 22, 26);
  if (oggCrc(copy) !== expected) throw new RangeError('Ogg page checksum mismatch');
}

export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}
