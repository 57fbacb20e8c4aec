import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { MEMBER_BYTES } from '../../src/snapshot/parallel-gzip.js';
import { TarWriter } from '../../src/snapshot/tar-write.js';
import { tempDir } from './helpers.js';

/** The stream `fill` writes, whole. */
async function stream(fill: (w: TarWriter) => Promise<void>): Promise<Buffer> {
  const out = new PassThrough();
  const done = buffer(out);
  const w = new TarWriter(out);
  await fill(w);
  await w.end();
  out.end();
  return done;
}

/** Files of every size around the buffer's edges: empty, odd, block-sized, and ones that cross a buffer. */
const FILES = [0, 1, 511, 512, 513, 70_000, MEMBER_BYTES - 1024, MEMBER_BYTES + 7, 3000].map((n, i) => ({ path: `d/f${i}.bin`, body: randomBytes(n) }));

describe('TarWriter: small files read straight into the stream buffer', () => {
  it('writes the same bytes as copying each file in, and `tar -x` reads every file back', async () => {
    const copied = await stream(async (w) => {
      for (const f of FILES) await w.file({ path: f.path, mode: 0o644, mtime: 1_700_000_000_000 }, f.body);
    });
    let inPlace = 0;
    const read = await stream(async (w) => {
      for (const f of FILES) {
        const slot = w.inPlace({ path: f.path, mode: 0o644, mtime: 1_700_000_000_000 }, f.body.length);
        if (!slot) {
          await w.file({ path: f.path, mode: 0o644, mtime: 1_700_000_000_000 }, f.body);
          continue;
        }
        inPlace += 1;
        f.body.copy(slot.content);
        await slot.commit();
      }
    });
    expect(inPlace).toBeGreaterThan(3); // most went in place; the file larger than a buffer could not
    expect(read.equals(copied)).toBe(true);
    const dir = tempDir();
    writeFileSync(join(dir, 'a.tar'), read);
    mkdirSync(join(dir, 'x'));
    execFileSync('tar', ['-xf', join(dir, 'a.tar'), '-C', join(dir, 'x')]);
    for (const f of FILES) expect(readFileSync(join(dir, 'x', f.path)).equals(f.body)).toBe(true);
  });

  it('an entry read in place but not committed (the file changed while read) leaves nothing in the stream', async () => {
    const body = Buffer.from('the content as first read\n');
    const dropped = await stream(async (w) => {
      const slot = w.inPlace({ path: 'changing.txt', mode: 0o644, mtime: 0 }, 4096)!;
      slot.content.fill(0x41); // read, then found changed: dropped
      await w.file({ path: 'changing.txt', mode: 0o644, mtime: 0 }, body);
    });
    const plain = await stream((w) => w.file({ path: 'changing.txt', mode: 0o644, mtime: 0 }, body));
    expect(dropped.equals(plain)).toBe(true);
  });
});
