/**
 * The S3 snapshot store (issue 14) next to the directory store, in one run on the same generated tree
 * (~100 MB / 10,000 files, as bench/snapshot.bench.ts): a full snapshot's create (pack + upload), a memory-only
 * delta's create, and restore — from S3 into an empty cache (a new machine: download + extract), from S3 with the
 * blobs cached, and from the directory store. Medians of alternating runs; every restore goes into a directory
 * never used before. Then how many head moves per second one lineage takes (compare-and-swap on one object):
 * one writer in a loop, and 8 writers contending. Needs the env of `scripts/s3-local.sh up` (or any S3 endpoint);
 * without it the bench says so and measures nothing. `npm run bench -- s3-store [--quick]`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { HeadConflictError, openSnapshotStore, openStore, type Manifest, type S3Store } from '../src/snapshot/index.js';
import { newSnapshotId } from '../src/snapshot/id.js';
import { generateTree } from './support/gen-tree.js';
import { median, table, timeMs } from './support/stats.js';

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

async function openS3(url: string, cacheDir: string): Promise<S3Store> {
  return (await openSnapshotStore(url, {}, { cacheDir })) as S3Store;
}

/** `n` snapshots a head can name, made cheaply: copies of `m`'s manifest under new ids (same blobs). */
async function aliases(store: S3Store, m: Manifest, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newSnapshotId();
    await store.putManifest({ ...m, id, parent: null });
    ids.push(id);
  }
  return ids;
}

async function headRate(url: string, work: string, m: Manifest, writers: number, movesEach: number): Promise<{ perSecond: number; conflicts: number; ms: number }> {
  const stores = await Promise.all(Array.from({ length: writers }, (_, i) => openS3(url, join(work, `heads-${writers}-${i}`))));
  await Promise.all(stores.map((st) => st.quirks()));
  const ids = await Promise.all(stores.map((st) => aliases(st, m, movesEach)));
  const lineage = `bench/heads-${writers}-${randomBytes(3).toString('hex')}`;
  let conflicts = 0;
  const ms = await timeMs(() =>
    Promise.all(
      stores.map(async (st, w) => {
        let expected = await st.getHead(lineage);
        for (const next of ids[w]!) {
          for (;;) {
            try {
              await st.advanceHead(lineage, expected, next);
              expected = next;
              break;
            } catch (err) {
              if (!(err instanceof HeadConflictError)) throw err;
              conflicts += 1;
              expected = err.current;
            }
          }
        }
      }),
    ),
  );
  return { perSecond: (writers * movesEach) / (ms / 1000), conflicts, ms };
}

export default async function s3StoreBench(opts: { quick: boolean }): Promise<void> {
  const bucket = process.env.MNEMARA_S3_BUCKET;
  if (!bucket || !(process.env.AWS_ENDPOINT_URL_S3 || process.env.AWS_ENDPOINT_URL || process.env.AWS_ACCESS_KEY_ID)) {
    process.stdout.write('no S3 endpoint in the environment (MNEMARA_S3_BUCKET, AWS_ENDPOINT_URL): skipped. Run: eval "$(bash scripts/s3-local.sh up)"\n');
    return;
  }
  const runs = opts.quick ? 2 : 3;
  const work = mkdtempSync(join(tmpdir(), 'mnemara-bench-s3-'));
  const genDir = join(tmpdir(), 'mnemara-bench-tree-v1');
  generateTree(genDir);
  const fresh = (tag: string): string => join(mkdtempSync(join(work, `${tag}-`)), 'out');
  try {
    const t = { dirCreate: [] as number[], s3Create: [] as number[], dirDelta: [] as number[], s3Delta: [] as number[], dirRestore: [] as number[], s3Cold: [] as number[], s3Warm: [] as number[] };
    let last: Manifest | undefined;
    for (let i = 0; i < runs; i++) {
      const dir = await openStore(join(work, `dir-${i}`));
      const url = `s3://${bucket}/bench-${Date.now().toString(36)}-${i}`;
      const s3 = await openS3(url, join(work, `cache-${i}`));
      let dirId = '';
      let s3Id = '';
      const createDir = async (): Promise<void> => {
        t.dirCreate.push(await timeMs(async () => (dirId = (await dir.create({ dir: genDir }, { lineage: 'bench', kind: 'workspace', parent: null })).id)));
      };
      const createS3 = async (): Promise<void> => {
        t.s3Create.push(await timeMs(async () => (s3Id = (last = await s3.create({ dir: genDir }, { lineage: 'bench', kind: 'workspace', parent: null })).id)));
      };
      if (i % 2) await createS3().then(createDir);
      else await createDir().then(createS3);
      // A memory-only delta on top: what each session adds.
      const memRoot = mkdtempSync(join(work, 'memroot-'));
      mkdirSync(join(memRoot, 'memories'));
      writeFileSync(join(memRoot, 'memories', 'MEMORY.md'), `# Memory\n- run ${i}: ${randomBytes(8).toString('hex')}\n`);
      const delta = { lineage: 'bench', kind: 'memory' as const, scope: ['memories'] };
      t.dirDelta.push(await timeMs(() => dir.create({ dir: memRoot }, { ...delta, parent: dirId })));
      // The delta on S3 from a second machine: it fetches the parent's tree index, packs, uploads.
      const other = await openS3(url, join(work, `cache-${i}-delta`));
      t.s3Delta.push(await timeMs(() => other.create({ dir: memRoot }, { ...delta, parent: s3Id })));
      const restoreDir = async (): Promise<void> => {
        const out = fresh('dir');
        t.dirRestore.push(await timeMs(() => dir.restoreToDirectory(dirId, out)));
      };
      const restoreCold = async (): Promise<void> => {
        const out = fresh('cold');
        const newMachine = await openS3(url, join(work, `cache-${i}-cold`));
        t.s3Cold.push(await timeMs(() => newMachine.restoreToDirectory(s3Id, out)));
      };
      const restoreWarm = async (): Promise<void> => {
        const out = fresh('warm');
        t.s3Warm.push(await timeMs(() => s3.restoreToDirectory(s3Id, out)));
      };
      const order = [restoreDir, restoreCold, restoreWarm];
      for (const step of i % 2 ? order.reverse() : order) await step();
    }
    const [dc, sc, dd, sd, dr, cold, warm] = [t.dirCreate, t.s3Create, t.dirDelta, t.s3Delta, t.dirRestore, t.s3Cold, t.s3Warm].map(median) as number[];
    const stored = last ? last.layers[0]!.compressedBytes : 0;
    process.stdout.write(
      `generated tree, ${(stored / 1024 / 1024).toFixed(1)} MB stored; medians of ${runs} runs\n` +
        table([
          ['operation', 'directory store', 'S3 store', 'ratio S3/dir'],
          ['create (full)', s(dc!), s(sc!), (sc! / dc!).toFixed(2)],
          ['create (memory delta)', s(dd!), s(sd!), (sd! / dd!).toFixed(2)],
          ['restore, empty cache', s(dr!), s(cold!), (cold! / dr!).toFixed(2)],
          ['restore, blobs cached', s(dr!), s(warm!), (warm! / dr!).toFixed(2)],
        ]) +
        '\n',
    );

    const url = `s3://${bucket}/bench-heads-${Date.now().toString(36)}`;
    const base = await openS3(url, join(work, 'heads-base'));
    const small = mkdtempSync(join(work, 'small-'));
    writeFileSync(join(small, 'a.txt'), 'a\n');
    const m = await base.create({ dir: small }, { lineage: 'bench/heads', kind: 'workspace', parent: null });
    const moves = opts.quick ? 20 : 50;
    const one = await headRate(url, work, m, 1, moves * 2);
    const eight = await headRate(url, work, m, 8, Math.ceil(moves / 4));
    process.stdout.write(
      'head moves on one lineage (read head + HEAD manifest + conditional PUT each; conflicts retried)\n' +
        table([
          ['writers', 'moves', 'time', 'moves/s', 'conflicts'],
          ['1', String(moves * 2), s(one.ms), one.perSecond.toFixed(1), String(one.conflicts)],
          ['8', String(8 * Math.ceil(moves / 4)), s(eight.ms), eight.perSecond.toFixed(1), String(eight.conflicts)],
        ]) +
        '\n',
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
