/**
 * `npm run db:template`: saves the files of a freshly initialized PGlite database as
 * assets/pglite-initdb-<version>.tar.gz, which new embedded databases start from
 * (src/db/pglite-template.ts). Run it after upgrading @electric-sql/pglite and commit the file;
 * a test fails while it is missing.
 */
import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { templateFile } from '../src/db/pglite-template.ts';

const client = new PGlite();
await client.waitReady;
const tarball = await client.dumpDataDir('gzip');
await client.close();
const file = templateFile();
writeFileSync(file, Buffer.from(await tarball.arrayBuffer()));
process.stdout.write(`wrote ${file} (${tarball.size} bytes)\n`);
