/**
 * Issue 9, new-user trial (high): sparse files came back dense (3 GiB of zeros written). Whatever size of
 * chunks the tar stream arrives in (zlib gives 16 KiB), runs of zeros become holes again, and the content
 * read back is the same bytes. The stream is generated: no disk beyond what the restore allocates.
 */
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { openSync, readSync, closeSync, statSync } from 'node:fs';
import { Header } from 'tar';
import { describe, expect, it } from 'vitest';
import { extractTar } from '../../src/snapshot/extract.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { tempDir } from './helpers.js';

const SIZE = 256 * 1024 * 1024;

function* sparseTar(chunk: number): Generator<Buffer> {
  const block = Buffer.alloc(512);
  new Header({ path: 'disk.img', type: 'File', mode: 0o644, size: SIZE, mtime: new Date(1_700_000_000_000), uid: 0, gid: 0 }).encode(block);
  yield block;
  const zeros = Buffer.alloc(chunk);
  const head = Buffer.alloc(chunk);
  head.write('HEAD');
  for (let off = 0; off < SIZE; off += chunk) yield off === 0 ? head : off + chunk >= SIZE ? Buffer.concat([zeros.subarray(0, chunk - 4), Buffer.from('TAIL')]) : zeros;
  yield Buffer.alloc(1024);
}

describe('sparse files on restore', () => {
  for (const chunk of [16 * 1024, 64 * 1024, 1024 * 1024]) {
    it(`a 256 MiB file of zeros arriving in ${chunk / 1024} KiB chunks is written with holes, same bytes`, async () => {
      const dest = tempDir();
      await extractTar(Readable.from(sparseTar(chunk)), dest, { limits: DEFAULT_RESTORE_LIMITS });
      const st = statSync(join(dest, 'disk.img'));
      expect(st.size).toBe(SIZE);
      expect(st.blocks * 512).toBeLessThan(4 * 1024 * 1024);
      const fd = openSync(join(dest, 'disk.img'), 'r');
      const b = Buffer.alloc(4);
      readSync(fd, b, 0, 4, 0);
      expect(b.toString()).toBe('HEAD');
      readSync(fd, b, 0, 4, SIZE - 4);
      expect(b.toString()).toBe('TAIL');
      readSync(fd, b, 0, 4, SIZE / 2);
      expect(b).toEqual(Buffer.alloc(4));
      closeSync(fd);
    });
  }
});
