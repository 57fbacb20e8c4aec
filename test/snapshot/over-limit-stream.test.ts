/**
 * Issue 9, new-user trial (critical): a sandbox's tar stream holding a file past the content limit (the agent
 * grew it during the run) made the workspace snapshot fail, losing the run's work. The snapshot now leaves such
 * a file out, lists it in `skipped`, and keeps the rest; the inflation check still counts its bytes. A restore
 * of a layer holding such a file still refuses it. The stream is generated (one zero buffer reused), no disk.
 */
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Header } from 'tar';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { DEFAULT_RESTORE_LIMITS } from '../../src/snapshot/limits.js';
import { tempDir } from './helpers.js';

const MiB = 1024 * 1024;

function header(path: string, size: number): Buffer {
  const block = Buffer.alloc(512);
  new Header({ path, type: 'File', mode: 0o644, size, mtime: new Date(1_700_000_000_000), uid: 0, gid: 0 }).encode(block);
  return block;
}

/** A tar stream: `result.txt`, then files of the given sizes (zeros), then `after.txt`. */
function* stream(sizes: Array<[string, number]>): Generator<Buffer> {
  const zeros = Buffer.alloc(MiB);
  const small = (path: string, body: string): Buffer[] => [header(path, body.length), Buffer.concat([Buffer.from(body), Buffer.alloc(512 - body.length)])];
  yield* small('result.txt', 'kept work');
  for (const [path, size] of sizes) {
    yield header(path, size);
    for (let left = size; left > 0; left -= MiB) yield left >= MiB ? zeros : zeros.subarray(0, left);
    if (size % 512) yield Buffer.alloc(512 - (size % 512));
  }
  yield* small('after.txt', 'also kept');
  yield Buffer.alloc(1024);
}

describe('a file over the content limit in a source stream', () => {
  it('is left out and listed; the rest of the run is snapshotted and restores', async () => {
    const limit = DEFAULT_RESTORE_LIMITS.maxTotalBytes;
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ tar: Readable.from(stream([['grown.img', limit + MiB]])) }, { lineage: 'grown', kind: 'workspace' });
    const skipped = Object.fromEntries((m.skipped ?? []).map((s) => [s.path, s.reason]));
    expect(skipped['grown.img']).toContain(`${limit + MiB} bytes, over the restore limit of ${limit} bytes of content`);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(m.id, out);
    expect(readFileSync(join(out, 'result.txt'), 'utf8')).toBe('kept work');
    expect(readFileSync(join(out, 'after.txt'), 'utf8')).toBe('also kept');
    expect(() => readFileSync(join(out, 'grown.img'))).toThrow(/ENOENT/);
  }, 120_000);
});
