import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { MEMBER_BYTES, ParallelGzip } from '../../src/snapshot/parallel-gzip.js';
import { buildMessyTree } from '../support/messy-tree.js';
import { describeTreeBytes, tempDir } from './helpers.js';

async function compress(data: Buffer, pieces = 7): Promise<Buffer> {
  const parts = Array.from({ length: pieces }, (_, i) => data.subarray(Math.floor((i * data.length) / pieces), Math.floor(((i + 1) * data.length) / pieces)));
  return buffer(Readable.from(parts).pipe(new ParallelGzip(1)));
}

/** Offsets where a gzip member starts (magic, deflate, no flags, as zlib writes them), checked by inflating from each. */
function memberCount(gz: Buffer): number {
  let n = 0;
  for (let off = 0; off < gz.length - 3; off++) {
    if (gz[off] === 0x1f && gz[off + 1] === 0x8b && gz[off + 2] === 8) {
      try {
        gunzipSync(gz.subarray(off));
        n += 1;
      } catch {
        // a byte pattern inside compressed data, not a member
      }
    }
  }
  return n;
}

describe('gzip compressed in parallel members', () => {
  it('is one gzip stream that zlib and the system gzip read whole, the same bytes for the same input', async () => {
    const data = Buffer.concat([randomBytes(2 * MEMBER_BYTES), Buffer.from('text '.repeat(400_000)), randomBytes(1234)]);
    const gz = await compress(data);
    expect(memberCount(gz)).toBeGreaterThanOrEqual(4);
    expect(gunzipSync(gz).equals(data)).toBe(true);
    expect(execFileSync('gzip', ['-dc'], { input: gz, maxBuffer: 64 * 1024 * 1024 }).equals(data)).toBe(true);
    expect((await compress(data, 3)).equals(gz)).toBe(true); // how the input arrives does not change the bytes
    const empty = await compress(Buffer.alloc(0), 1);
    expect(gunzipSync(empty).length).toBe(0);
  });

  it('a layer of a messy tree is read by `tar -xzf` and by our restore to the same tree, byte for byte', async () => {
    const src = tempDir();
    const messy = buildMessyTree(src, { entries: 500, sparseBytes: 2 * 1024 * 1024 });
    for (const cache of messy.caches) rmSync(join(src, cache), { recursive: true }); // ignored by default
    for (const s of messy.specials) rmSync(join(src, s)); // skipped by a snapshot, not compared
    writeFileSync(join(src, 'asset.bin'), randomBytes(3 * MEMBER_BYTES)); // the layer spans several members
    const store = await openStore(tempDir());
    const m = await store.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
    const blob = store.blobs.pathOf(m.layers[0]!.digest);
    expect(memberCount(execFileSync('cat', [blob], { maxBuffer: 64 * 1024 * 1024 }))).toBeGreaterThanOrEqual(3);
    const byTar = join(tempDir(), 'tar');
    mkdirSync(byTar);
    execFileSync('tar', ['-xzf', blob, '-C', byTar]);
    const ours = join(tempDir(), 'ours');
    await store.restoreToDirectory(m.id, ours);
    const expected = describeTreeBytes(src);
    expect(describeTreeBytes(ours)).toEqual(expected);
    const fromTar = describeTreeBytes(byTar);
    delete fromTar['']; // tar's entry for "." is not a path
    expect(fromTar).toEqual(expected);
  });
});
