import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/config/progress.js';
import { HeadConflictError, SnapshotCorruptError, type S3Store } from '../../src/snapshot/index.js';
import { casSupported } from '../../src/snapshot/store/s3-probe.js';
import { freshS3Url, openS3, s3TestEnv } from '../support/s3-env.js';
import { startFaultProxy } from '../support/fault-proxy.js';
import { describeTree, tempDir } from './helpers.js';

const env = s3TestEnv();
const ROOT = join(import.meta.dirname, '../..');
const CHILD = join(import.meta.dirname, 'fixtures/s3-child.ts');

/** A small project-like tree: sources, a lockfile, a memory folder, a nested dependency, an incompressible asset. */
function project(root: string, assetBytes = 64 * 1024): string {
  for (const [p, text] of Object.entries({
    'package.json': '{"name":"app","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}}\n',
    'src/index.ts': 'export const main = () => 42;\n',
    'src/ünïcode name.md': 'näme\n',
    'node_modules/left-pad/index.js': 'module.exports = (s) => s;\n',
    'memories/MEMORY.md': '# Memory\n- run npm ci before tests\n',
    'sessions/r1.jsonl': '{"type":"session_meta","payload":{"id":"r1"}}\n',
  })) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  writeFileSync(join(root, 'asset.bin'), randomBytes(assetBytes));
  return root;
}

const downloads = (events: ProgressEvent[]): number => events.filter((e) => e.step === 'download' && e.phase === 'start').length;

describe.skipIf(env.skip !== undefined)('S3 store on a real S3-compatible server', () => {
  const bucket = env.bucket!;

  it('a second machine restores the first one\'s snapshots byte for byte, downloading only what its cache lacks', async () => {
    const url = freshS3Url(bucket);
    const a = await openS3(url, tempDir('mnemara-home-a-'));
    const b = await openS3(url, tempDir('mnemara-home-b-'));
    const src = project(tempDir());
    const m1 = await a.create({ dir: src }, { lineage: 'team/main', kind: 'workspace' });
    await a.advanceHead('team/main', null, m1.id);
    const first = describeTree(src);
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- run npm ci before tests\n- the API needs a token\n');
    const m2 = await a.create({ dir: src }, { lineage: 'team/main', kind: 'workspace' });
    await a.advanceHead('team/main', m1.id, m2.id);

    expect(await b.getHead('team/main')).toBe(m2.id);
    const events: ProgressEvent[] = [];
    const out2 = join(tempDir(), 'two');
    await b.restoreToDirectory(m2.id, out2, { onProgress: (e) => events.push(e) });
    expect(describeTree(out2)).toEqual(describeTree(src));
    expect(downloads(events)).toBe(2); // the full layer and the delta

    events.length = 0;
    const out1 = join(tempDir(), 'one');
    await b.restoreToDirectory(m1.id, out1, { onProgress: (e) => events.push(e) });
    expect(describeTree(out1)).toEqual(first);
    expect(downloads(events)).toBe(0); // m1's only layer is m2's first: cached

    events.length = 0;
    await a.restoreToDirectory(m2.id, join(tempDir(), 'a'), { onProgress: (e) => events.push(e) });
    expect(downloads(events)).toBe(0); // the machine that made it has it all
    expect((await b.list({ lineage: 'team/main' })).map((m) => m.id)).toEqual([m1.id, m2.id]);
  });

  it('a delta made on the second machine needs only the parent\'s tree index, not its layers', async () => {
    const url = freshS3Url(bucket);
    const a = await openS3(url, tempDir('mnemara-home-a-'));
    const b = await openS3(url, tempDir('mnemara-home-b-'));
    const src = project(tempDir(), 512 * 1024);
    const m1 = await a.create({ dir: src }, { lineage: 'l', kind: 'workspace' });
    await a.advanceHead('l', null, m1.id);
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- changed on b\n');
    const events: ProgressEvent[] = [];
    const m2 = await b.create({ dir: src }, { lineage: 'l', kind: 'workspace', onProgress: (e) => events.push(e) });
    expect(m2.parent).toBe(m1.id);
    expect(m2.layers[1]!.fileCount).toBe(1);
    expect(downloads(events)).toBe(1); // the tree index only
    const out = join(tempDir(), 'out');
    await a.restoreToDirectory(m2.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
  });

  it('a delta that squashes the chain on another machine fetches the parent\'s tree index too, not only its layers', async () => {
    // The 16-session run showed "tree index unreadable; scanning the chain instead": a squashing create fetched
    // the parent's layers but not its tree index, so every squash on a second machine scanned the whole chain.
    const url = freshS3Url(bucket);
    const config = { maxChainLength: 2 };
    const a = await openS3(url, tempDir('mnemara-home-a-'), { config });
    const src = project(tempDir());
    const m1 = await a.create({ dir: src }, { lineage: 'sq', kind: 'workspace' });
    await a.advanceHead('sq', null, m1.id);
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- two\n');
    const m2 = await a.create({ dir: src }, { lineage: 'sq', kind: 'workspace' });
    await a.advanceHead('sq', m1.id, m2.id);
    const b = await openS3(url, tempDir('mnemara-home-b-'), { config });
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- three\n');
    const m3 = await b.create({ dir: src }, { lineage: 'sq', kind: 'workspace' });
    expect(m3.layers).toHaveLength(2); // the deltas folded into one on the full base (which reads the whole chain)
    expect(m3.layers[0]!.digest).toBe(m1.layers[0]!.digest);
    expect(await b.cache.blobs.has(m2.treeIndex!.digest)).toBe(true);
    const out = join(tempDir(), 'out');
    await a.restoreToDirectory(m3.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
  });

  it('a second machine builds on a head whose tree index is a change: it fetches the bases and writes a change again', async () => {
    const url = freshS3Url(bucket);
    const a = await openS3(url, tempDir('mnemara-home-a-'));
    const src = project(tempDir());
    const m1 = await a.create({ dir: src }, { lineage: 'ix', kind: 'workspace' });
    await a.advanceHead('ix', null, m1.id);
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- two\n');
    const m2 = await a.create({ dir: src }, { lineage: 'ix', kind: 'memory', scope: ['memories'] });
    await a.advanceHead('ix', m1.id, m2.id);
    expect(m2.treeIndex!.bases).toEqual([m1.treeIndex!.digest]);
    const b = await openS3(url, tempDir('mnemara-home-b-'));
    writeFileSync(join(src, 'memories/MEMORY.md'), '# Memory\n- three\n');
    const m3 = await b.create({ dir: src }, { lineage: 'ix', kind: 'memory', scope: ['memories'] });
    expect(m3.treeIndex!.bases).toEqual([m2.treeIndex!.digest, m1.treeIndex!.digest]); // not a full index: the chain was read
    expect(m3.layers.at(-1)!.fileCount).toBe(1);
    const c = await openS3(url, tempDir('mnemara-home-c-'));
    const out = join(tempDir(), 'out');
    await c.restoreToDirectory(m3.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
    for (const d of [m3.treeIndex!.digest, ...m3.treeIndex!.bases!]) expect(await c.blobs.has(d)).toBe(true);
  });

  it('refuses a blob whose bytes in the store do not match its digest, and does not cache it', async () => {
    const url = freshS3Url(bucket);
    const a = await openS3(url, tempDir('mnemara-home-a-'));
    const m = await a.create({ dir: project(tempDir()) }, { lineage: 'l', kind: 'workspace' });
    const digest = m.layers[0]!.digest;
    await a.objects.client.send(new PutObjectCommand({ Bucket: bucket, Key: a.objects.key(a.blobs.rel(digest)), Body: 'not the layer' }));
    const b = await openS3(url, tempDir('mnemara-home-b-'));
    const err = await b.restoreToDirectory(m.id, join(tempDir(), 'out')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SnapshotCorruptError);
    expect((err as Error).message).toContain(digest);
    expect(await b.cache.blobs.has(digest)).toBe(false);
  });

  it('moves a head by compare-and-swap under a race: 8 writers, one winner, the others told who won', async () => {
    const url = freshS3Url(bucket);
    const stores = await Promise.all(Array.from({ length: 8 }, () => openS3(url, tempDir('mnemara-home-'))));
    const src = project(tempDir(), 1024);
    const ids: string[] = [];
    for (const s of stores) ids.push((await s.create({ dir: src }, { lineage: 'race', kind: 'workspace', parent: null })).id);
    const results = await Promise.all(stores.map((s, i) => s.advanceHead('race', null, ids[i]!).then(() => 'won', (e: unknown) => e)));
    const winners = results.flatMap((r, i) => (r === 'won' ? [ids[i]] : []));
    expect(winners).toHaveLength(1);
    for (const r of results.filter((x) => x !== 'won')) {
      expect(r).toBeInstanceOf(HeadConflictError);
      expect((r as HeadConflictError).current).toBe(winners[0]);
    }
    expect(await stores[3]!.getHead('race')).toBe(winners[0]);
  });

  it('loses no move when 8 writers each advance a head 3 times: the moves form one chain', async () => {
    const url = freshS3Url(bucket);
    const stores = await Promise.all(Array.from({ length: 8 }, () => openS3(url, tempDir('mnemara-home-'))));
    const src = project(tempDir(), 1024);
    const mine = await Promise.all(
      stores.map(async (s) => {
        const out: string[] = [];
        for (let k = 0; k < 3; k++) out.push((await s.create({ dir: src }, { lineage: 'chain', kind: 'workspace', parent: null })).id);
        return out;
      }),
    );
    const moves = new Map<string | null, string>(); // expected → next, as each writer saw its success
    await Promise.all(
      stores.map(async (s, i) => {
        for (const next of mine[i]!) {
          let expected = await s.getHead('chain');
          for (;;) {
            try {
              await s.advanceHead('chain', expected, next);
              expect(moves.has(expected)).toBe(false); // two writers never both move from the same head
              moves.set(expected, next);
              break;
            } catch (err) {
              if (!(err instanceof HeadConflictError)) throw err;
              expected = err.current;
            }
          }
        }
      }),
    );
    const chain: string[] = [];
    for (let cur = moves.get(null); cur !== undefined; cur = moves.get(cur)) chain.push(cur);
    expect(chain).toHaveLength(24);
    expect(new Set(chain)).toEqual(new Set(mine.flat()));
    expect(await stores[0]!.getHead('chain')).toBe(chain[23]);
  }, 120_000);

  it('decides a conditional head write whose answer was lost (503 or a dropped connection) by reading the head again', async () => {
    const url = freshS3Url(bucket);
    const setup = await openS3(url, tempDir('mnemara-home-'));
    await setup.quirks(); // probe through the real endpoint
    const src = project(tempDir(), 1024);
    const ids: string[] = [];
    for (let k = 0; k < 3; k++) ids.push((await setup.create({ dir: src }, { lineage: 'lost', kind: 'workspace', parent: null })).id);
    let next: 'pass' | '503' | 'drop' = '503';
    const proxy = await startFaultProxy(process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL!, (req) => {
      if (req.method !== 'PUT' || !req.url?.includes('/refs/lineages/')) return 'pass';
      const f = next;
      next = 'pass';
      return f;
    });
    try {
      const s = await openS3(url, setup.options.cacheDir, { env: { ...process.env, AWS_ENDPOINT_URL: proxy.url, AWS_ENDPOINT_URL_S3: proxy.url } });
      await s.advanceHead('lost', null, ids[0]!); // create: applied, answered 503
      expect(await setup.getHead('lost')).toBe(ids[0]);
      next = '503';
      await s.advanceHead('lost', ids[0]!, ids[1]!); // If-Match move: applied, answered 503
      next = 'drop';
      await s.advanceHead('lost', ids[1]!, ids[2]!); // applied, connection dropped
      expect(await setup.getHead('lost')).toBe(ids[2]);
      expect(proxy.faults).toBe(3);
      next = '503';
      const err = await s.advanceHead('lost', ids[0]!, ids[1]!).catch((e: unknown) => e); // stale: a real conflict
      expect(err).toBeInstanceOf(HeadConflictError);
      expect((err as HeadConflictError).current).toBe(ids[2]);
    } finally {
      proxy.server.close();
    }
  });

  it('probes the server once, caches what it found, and finds compare-and-swap usable', async () => {
    const url = freshS3Url(bucket);
    const cacheDir = tempDir('mnemara-home-');
    const s = await openS3(url, cacheDir);
    const q = await s.quirks();
    expect(casSupported(q)).toBe(true);
    expect(q.ifMatch).not.toBe('none');
    expect(readdirSync(cacheDir)).toContain('quirks.json');
    const again = await (await openS3(url, cacheDir)).quirks();
    expect(again.probedAt).toBe(q.probedAt); // from the cache, not probed again
    expect(await s.objects.list('.mnemara-probe')).toEqual([]); // probe objects removed
  });

  it('uploads a large layer in parts and restores it exactly elsewhere', async () => {
    const url = freshS3Url(bucket);
    const a = await openS3(url, tempDir('mnemara-home-a-'), { multipartThreshold: 5 * 1024 * 1024, partBytes: 5 * 1024 * 1024 });
    const src = project(tempDir(), 12 * 1024 * 1024);
    const events: ProgressEvent[] = [];
    const m = await a.create({ dir: src }, { lineage: 'big', kind: 'workspace', onProgress: (e) => events.push(e) });
    expect(m.layers[0]!.compressedBytes).toBeGreaterThan(12 * 1024 * 1024);
    expect((await a.objects.head(a.blobs.rel(m.layers[0]!.digest)))?.bytes).toBe(m.layers[0]!.compressedBytes);
    expect(events.filter((e) => e.step === 'upload' && e.phase === 'progress').length).toBeGreaterThanOrEqual(2);
    const b = await openS3(url, tempDir('mnemara-home-b-'));
    const out = join(tempDir(), 'out');
    await b.restoreToDirectory(m.id, out);
    expect(describeTree(out)).toEqual(describeTree(src));
  });

  it('an upload killed midway leaves no listed snapshot and no head', async () => {
    const url = freshS3Url(bucket);
    const cacheDir = tempDir('mnemara-home-');
    const src = project(tempDir(), 40 * 1024 * 1024);
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, url, cacheDir, src], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('uploading')) child.kill('SIGKILL');
      });
      child.on('exit', () => resolve());
      child.on('error', reject);
    });
    expect(out).toContain('uploading');
    expect(out).not.toContain('done');
    const s: S3Store = await openS3(url, tempDir('mnemara-home-'));
    expect(await s.list()).toEqual([]);
    expect(await s.listHeads()).toEqual({});
    expect(await s.objects.list('snapshots')).toEqual([]);
  }, 120_000);
});
