import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTemporaryFolder, removeTemporaryFolder } from '../../tests/support/test-resources.ts';
import { TemplateUnpacker } from './template-unpacker.ts';

interface Entry {
  name: string;
  type: '0' | '5' | '2';
  data?: Buffer;
  mode?: number;
}

/** A ustar archive as `tar` writes one: a 512-byte header per entry, data padded to 512. */
function archive(entries: Entry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const header = Buffer.alloc(512);
    const data = entry.data ?? Buffer.alloc(0);
    header.write(entry.name, 0, 100, 'utf8');
    header.write(`${(entry.mode ?? 0o600).toString(8).padStart(7, '0')}\0`, 100, 'ascii');
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
    header.write(entry.type, 156, 'ascii');
    header.write('ustar\0', 257, 'ascii');
    header.write('00', 263, 'ascii');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

const folders: string[] = [];
afterEach(() => {
  for (const made of folders.splice(0)) removeTemporaryFolder(made);
});

function folder(): string {
  const made = makeTemporaryFolder('template-unpacker-');
  folders.push(made);
  return made;
}

const TEMPLATE: Entry[] = [
  { name: '/global', type: '5', mode: 0o700 },
  { name: '/global/pg_control', type: '0', data: Buffer.from('control'.repeat(300)) },
  { name: '/pg_wal/000001', type: '0', data: Buffer.alloc(5000, 7) },
  { name: '/empty', type: '0' },
  { name: '/base/1/PG_VERSION', type: '0', data: Buffer.from('17\n') },
  { name: '/PG_VERSION', type: '0', data: Buffer.from('17\n') },
  { name: '/postgresql.conf', type: '0', data: Buffer.from('shared_buffers = 16MB\n') },
];

describe('TemplateUnpacker', () => {
  it('writes every file and directory whatever the chunks the archive arrives in', () => {
    const bytes = archive(TEMPLATE);
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: bytes.length }), { maxLength: 12 }),
        (cuts) => {
          const root = folder();
          const unpacker = new TemplateUnpacker(root);
          const points = [...new Set(cuts)].sort((a, b) => a - b);
          let start = 0;
          for (const point of [...points, bytes.length]) {
            unpacker.write(bytes.subarray(start, point));
            start = point;
          }
          unpacker.finish();
          expect(readFileSync(path.join(root, 'global/pg_control'), 'utf8')).toBe(
            'control'.repeat(300),
          );
          expect(readFileSync(path.join(root, 'pg_wal/000001'))).toEqual(Buffer.alloc(5000, 7));
          expect(statSync(path.join(root, 'empty')).size).toBe(0);
          expect(readFileSync(path.join(root, 'PG_VERSION'), 'utf8')).toBe('17\n');
          expect(readFileSync(path.join(root, 'base/1/PG_VERSION'), 'utf8')).toBe('17\n');
          expect(readFileSync(path.join(root, 'postgresql.conf'), 'utf8')).toContain('16MB');
        },
      ),
      { numRuns: 25 },
    );
  });

  it('holds PG_VERSION back until the archive is whole', () => {
    const root = folder();
    const bytes = archive(TEMPLATE);
    const unpacker = new TemplateUnpacker(root);
    unpacker.write(bytes.subarray(0, bytes.length - 1024)); // all but the end blocks
    expect(readdirSync(root)).not.toContain('PG_VERSION');
    expect(readdirSync(root)).toContain('postgresql.conf'); // written after it in the archive
    unpacker.write(bytes.subarray(bytes.length - 1024));
    unpacker.finish();
    expect(readdirSync(root)).toContain('PG_VERSION');
  });

  it('refuses an archive cut off inside a file or before its end, or without PG_VERSION', () => {
    const bytes = archive(TEMPLATE);
    const cut = new TemplateUnpacker(folder());
    cut.write(bytes.subarray(0, 1024 + 100)); // inside pg_control's data
    expect(() => cut.finish()).toThrow(/ends inside a file/);
    cut.abandon();
    const unended = new TemplateUnpacker(folder());
    unended.write(bytes.subarray(0, bytes.length - 1024)); // whole entries, PG_VERSION among them
    expect(() => unended.finish()).toThrow(/ends before its end-of-archive blocks/);
    const unmarked = new TemplateUnpacker(folder());
    unmarked.write(archive(TEMPLATE.filter((entry) => entry.name !== '/PG_VERSION')));
    expect(() => unmarked.finish()).toThrow(/no whole PG_VERSION/);
  });

  it('refuses names outside its directory and entries it does not know', () => {
    const root = folder();
    const escape = archive([{ name: '../escaped', type: '0', data: Buffer.from('x') }]);
    expect(() => new TemplateUnpacker(root).write(escape)).toThrow(/outside its directory/);
    expect(readdirSync(path.dirname(root))).not.toContain('escaped');
    const link = archive([{ name: '/link', type: '2' }]);
    expect(() => new TemplateUnpacker(folder()).write(link)).toThrow(/entry of type "2"/);
  });
});
