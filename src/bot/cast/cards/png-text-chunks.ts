/**
 * The `tEXt` chunks of a PNG file: where SillyTavern character cards carry their JSON
 * (keyword `chara` for V2, `ccv3` for V3, base64). Only the chunk structure is read; the image
 * itself is never decoded.
 */

const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Length, type and CRC around each chunk's data. */
const CHUNK_OVERHEAD = 12;
const CRC_TABLE = crcTable();

/** Whether the bytes start as a PNG file does. */
export function isPng(bytes: Uint8Array): boolean {
  return (
    bytes.length >= PNG_SIGNATURE.length &&
    PNG_SIGNATURE.every((byte, index) => bytes[index] === byte)
  );
}

/**
 * Keyword → text of every `tEXt` chunk before IEND (the first of a repeated keyword wins).
 * Undefined when the file is not a PNG or a chunk runs past the end of the file.
 */
export function readPngTextChunks(bytes: Uint8Array): Map<string, string> | undefined {
  if (!isPng(bytes)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const texts = new Map<string, string>();
  let offset = PNG_SIGNATURE.length;
  while (offset + CHUNK_OVERHEAD <= bytes.length) {
    const length = view.getUint32(offset);
    const type = latin1(bytes.subarray(offset + 4, offset + 8));
    const start = offset + 8;
    const end = start + length;
    if (end + 4 > bytes.length) return undefined;
    if (type === 'IEND') return texts;
    if (type === 'tEXt') {
      const data = bytes.subarray(start, end);
      const separator = data.indexOf(0);
      if (separator > 0) {
        const keyword = latin1(data.subarray(0, separator));
        if (!texts.has(keyword)) texts.set(keyword, latin1(data.subarray(separator + 1)));
      }
    }
    offset = end + 4;
  }
  return texts;
}

/** A PNG with `tEXt` chunks added before IEND (for exports and tests). */
export function withPngTextChunks(
  png: Uint8Array,
  chunks: ReadonlyArray<{ keyword: string; text: string }>,
): Uint8Array {
  if (!isPng(png)) throw new Error('not a PNG file');
  const iend = png.length - CHUNK_OVERHEAD;
  const added = chunks.map(({ keyword, text }) =>
    chunk(
      'tEXt',
      Uint8Array.from(`${keyword}\0${text}`, (character) => character.charCodeAt(0)),
    ),
  );
  const total = png.length + added.reduce((sum, item) => sum + item.length, 0);
  const result = new Uint8Array(total);
  result.set(png.subarray(0, iend), 0);
  let offset = iend;
  for (const item of added) {
    result.set(item, offset);
    offset += item.length;
  }
  result.set(png.subarray(iend), offset);
  return result;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(CHUNK_OVERHEAD + data.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, data.length);
  bytes.set(
    Uint8Array.from(type, (character) => character.charCodeAt(0)),
    4,
  );
  bytes.set(data, 8);
  view.setUint32(8 + data.length, crc32(bytes.subarray(4, 8 + data.length)));
  return bytes;
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function crcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let index = 0; index < 256; index += 1) {
    let value = index;
    for (let bit = 0; bit < 8; bit += 1) {
      value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    }
    table[index] = value >>> 0;
  }
  return table;
}
