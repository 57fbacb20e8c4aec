/**
 * Issue 9, new-user trial (medium): filling a sandbox from a snapshot printed nothing for 25–79 s. The export
 * stream (what `run` sends into the sandbox) now reports the content bytes sent of the total, as the host restore does.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/config/progress.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

describe('exportTar progress', () => {
  it('reports bytes sent of the total while a slow reader consumes the stream', async () => {
    const dir = tempDir();
    const big = Buffer.alloc(48 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(i, i);
    writeFileSync(join(dir, 'data.bin'), big);
    writeFileSync(join(dir, 'small.txt'), 'x');
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir }, { lineage: 'p', kind: 'workspace' });
    const events: ProgressEvent[] = [];
    const stream = await store.exportTar(m.id, { onProgress: (e) => events.push(e) });
    let got = 0;
    for await (const c of stream) {
      got += (c as Buffer).length;
      await sleep(Math.ceil((c as Buffer).length / (1024 * 1024)) * 40); // a sandbox's tar -x on a slow disk: ~25 MB/s
    }
    expect(got).toBeGreaterThan(big.length);
    const progress = events.filter((e) => e.phase === 'progress');
    expect(progress.length).toBeGreaterThan(0);
    for (const e of progress) expect(e).toMatchObject({ step: 'restore', total: big.length + 1, unit: 'bytes' });
    expect(progress.map((e) => e.done!)).toEqual([...progress.map((e) => e.done!)].sort((a, b) => a - b));
  }, 120_000);
});
