import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { copyLineage } from '../../src/snapshot/store/copy.js';
import { freshS3Url, openS3, s3TestEnv } from '../support/s3-env.js';
import { describeTree, tempDir } from './helpers.js';

const env = s3TestEnv();

function workspace(): string {
  const src = tempDir();
  mkdirSync(join(src, 'memories'), { recursive: true });
  mkdirSync(join(src, 'src'), { recursive: true });
  writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n');
  writeFileSync(join(src, 'src/main.py'), 'print("hi")\n');
  writeFileSync(join(src, 'Cargo.lock'), '# lock\n'.repeat(500));
  return src;
}

describe.skipIf(env.skip !== undefined)('snapshot push/pull between a directory store and an S3 store', () => {
  it('copies a lineage both ways, sending only missing blobs, and fast-forwards heads', async () => {
    const laptop = await openStore(tempDir());
    const bucket = await openS3(freshS3Url(env.bucket!), tempDir('mnemara-home-'));
    const other = await openStore(tempDir());
    const src = workspace();
    const m1 = await laptop.create({ dir: src }, { lineage: 'me/main', kind: 'workspace' });
    await laptop.advanceHead('me/main', null, m1.id);

    const push1 = await copyLineage(laptop, bucket, 'me/main');
    expect(push1).toMatchObject({ copied: [m1.id], blobs: 2, skippedBlobs: 0, head: m1.id, headMove: 'fast-forward' }); // layer + tree index
    expect(await copyLineage(laptop, bucket, 'me/main')).toMatchObject({ copied: [], blobs: 0, head: m1.id, headMove: 'unchanged' });

    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- cargo test needs --offline\n');
    const m2 = await laptop.create({ dir: src }, { lineage: 'me/main', kind: 'workspace' });
    await laptop.advanceHead('me/main', m1.id, m2.id);
    const push2 = await copyLineage(laptop, bucket, 'me/main');
    expect(push2).toMatchObject({ copied: [m2.id], blobs: 2, skippedBlobs: 2, head: m2.id, headMove: 'fast-forward' }); // the full layer and m1's index (m2's index is a change on it) were there

    const pull = await copyLineage(bucket, other, 'me/main');
    expect(pull).toMatchObject({ copied: [m1.id, m2.id], blobs: 4, head: m2.id });
    const out = join(tempDir(), 'out');
    await other.restoreToDirectory(m2.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));

    // Both sides move on: the copy brings the snapshots but leaves a diverged head alone.
    const m3 = await other.create({ dir: src }, { lineage: 'me/main', kind: 'memory', scope: ['memories'] });
    await other.advanceHead('me/main', m2.id, m3.id);
    const m4 = await laptop.create({ dir: src }, { lineage: 'me/main', kind: 'memory', scope: ['memories'] });
    await laptop.advanceHead('me/main', m2.id, m4.id);
    await copyLineage(laptop, bucket, 'me/main');
    const diverged = await copyLineage(other, bucket, 'me/main');
    expect(diverged).toMatchObject({ copied: [m3.id], headMove: 'diverged', head: m4.id });
    expect(await bucket.getHead('me/main')).toBe(m4.id);
  });

  it('says which lineage is missing', async () => {
    const empty = await openStore(tempDir());
    const bucket = await openS3(freshS3Url(env.bucket!), tempDir('mnemara-home-'));
    await expect(copyLineage(empty, bucket, 'nope')).rejects.toThrow(/lineage nope has no snapshots/);
  });
});
