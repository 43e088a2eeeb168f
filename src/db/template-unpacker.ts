/**
 * Writes a tar archive's directories and regular files into a directory as its bytes arrive,
 * so a 40 MB database template never sits in memory whole (pglite-template.ts says why that
 * matters). PostgreSQL's `PG_VERSION` is what marks a directory as a database: it is held back
 * and written last, so an unpacking cut off midway leaves a directory the next start unpacks
 * again rather than a half database PGlite would try to open.
 *
 * Only what the template holds is understood: ustar headers (with the `prefix` field), regular
 * files and directories. Anything else, or a name that would leave the directory, is an error.
 */
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const BLOCK = 512;
const MARKER_FILE = 'PG_VERSION';

interface OpenFile {
  fd: number;
  remaining: number;
  /** The zero bytes after the data, up to the next 512-byte boundary. */
  padding: number;
}

export class TemplateUnpacker {
  readonly #root: string;
  #carry: Buffer = Buffer.alloc(0);
  #file: OpenFile | undefined;
  #skip = 0;
  #ended = false;
  /** The marker file's entry, written by `finish`. */
  #marker: { mode: number; chunks: Buffer[]; remaining: number } | undefined;

  constructor(root: string) {
    this.#root = path.resolve(root);
    mkdirSync(this.#root, { recursive: true });
  }

  /** Takes the archive's next bytes. */
  write(chunk: Buffer): void {
    const data = this.#carry.length === 0 ? chunk : Buffer.concat([this.#carry, chunk]);
    this.#carry = Buffer.alloc(0);
    let offset = 0;
    while (offset < data.length && !this.#ended) {
      if (this.#marker !== undefined && this.#marker.remaining > 0) {
        offset += this.#keepMarker(data, offset);
      } else if (this.#file !== undefined) {
        offset += this.#writeData(data, offset);
      } else if (this.#skip > 0) {
        const skipped = Math.min(this.#skip, data.length - offset);
        this.#skip -= skipped;
        offset += skipped;
      } else if (data.length - offset < BLOCK) {
        this.#carry = Buffer.from(data.subarray(offset));
        return;
      } else {
        this.#header(data.subarray(offset, offset + BLOCK));
        offset += BLOCK;
      }
    }
  }

  /** The archive is whole: writes the marker file last. */
  finish(): void {
    if (this.#file !== undefined) throw new Error('the template ends inside a file');
    if (!this.#ended) throw new Error('the template ends before its end-of-archive blocks');
    const marker = this.#marker;
    if (marker === undefined || marker.remaining > 0)
      throw new Error(`the template has no whole ${MARKER_FILE}`);
    writeFileSync(path.join(this.#root, MARKER_FILE), Buffer.concat(marker.chunks), {
      mode: marker.mode,
    });
  }

  /** Closes a file left open when the archive failed midway. */
  abandon(): void {
    if (this.#file !== undefined) closeSync(this.#file.fd);
    this.#file = undefined;
  }

  #header(block: Buffer): void {
    if (block.every((byte) => byte === 0)) {
      this.#ended = true; // the end-of-archive blocks
      return;
    }
    const name = entryName(block);
    const mode = octal(block, 100, 8) & 0o777;
    const size = octal(block, 124, 12);
    const type = String.fromCharCode(block[156] ?? 0);
    const target = this.#inside(name);
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (type === '5') {
      mkdirSync(target, { recursive: true, mode: mode || 0o700 });
    } else if (type === '0' || type === '\0') {
      if (path.relative(this.#root, target) === MARKER_FILE) {
        this.#marker = { mode, chunks: [], remaining: size };
        this.#skip = padding;
        return;
      }
      mkdirSync(path.dirname(target), { recursive: true });
      const fd = openSync(target, 'w', mode || 0o600);
      if (size === 0) closeSync(fd);
      else this.#file = { fd, remaining: size, padding };
    } else {
      throw new Error(`the template holds an entry of type ${JSON.stringify(type)}: ${name}`);
    }
  }

  #writeData(data: Buffer, offset: number): number {
    const file = this.#file as OpenFile;
    const length = Math.min(file.remaining, data.length - offset);
    writeSync(file.fd, data, offset, length);
    file.remaining -= length;
    if (file.remaining === 0) {
      closeSync(file.fd);
      this.#file = undefined;
      this.#skip = file.padding;
    }
    return length;
  }

  #keepMarker(data: Buffer, offset: number): number {
    const marker = this.#marker as { chunks: Buffer[]; remaining: number };
    const length = Math.min(marker.remaining, data.length - offset);
    marker.chunks.push(Buffer.from(data.subarray(offset, offset + length)));
    marker.remaining -= length;
    return length;
  }

  /** The entry's path under the root; a name reaching outside it is refused. */
  #inside(name: string): string {
    const target = path.resolve(this.#root, `./${name}`);
    const relative = path.relative(this.#root, target);
    if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
      throw new Error(`the template names a path outside its directory: ${name}`);
    return target;
  }
}

/** ustar: `prefix` (345, 155 bytes) + '/' + `name` (0, 100 bytes), each NUL-terminated. */
function entryName(block: Buffer): string {
  const name = text(block, 0, 100);
  const magic = text(block, 257, 6);
  const prefix = magic.startsWith('ustar') ? text(block, 345, 155) : '';
  return prefix === '' ? name : `${prefix}/${name}`;
}

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}

function octal(block: Buffer, start: number, length: number): number {
  const digits = text(block, start, length).trim();
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new Error(`the template has a malformed number: ${digits}`);
  return Number.parseInt(digits, 8);
}
