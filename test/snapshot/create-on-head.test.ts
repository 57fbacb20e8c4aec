/**
 * `snapshot create DIR --lineage L` from a checkout (new-user finding): the checkout has no `sessions/` (and
 * maybe no `memories/`), and the snapshot used to delete the lineage's transcripts and memory from the head.
 * The memory layout's directories the checkout lacks are kept as the head had them; those it has are taken.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createOnHead } from '../../src/snapshot/create-on-head.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from './helpers.js';

const LAYOUT = ['memories', 'sessions'];

describe('createOnHead from a checkout', () => {
  it("keeps the head's memory layout directories the checkout lacks, and takes those it has", async () => {
    const store = await openStore(tempDir());
    const run = tempDir();
    mkdirSync(join(run, 'sessions'));
    mkdirSync(join(run, 'memories'));
    writeFileSync(join(run, 'app.py'), 'v1\n');
    writeFileSync(join(run, 'sessions/r1.jsonl'), '{"type":"session_meta"}\n');
    writeFileSync(join(run, 'memories/MEMORY.md'), '# from the run\n');
    const first = await createOnHead(store, run, { lineage: 'co', kind: 'workspace', boundMs: 1000, inheritMissing: LAYOUT });
    expect(first.inherited).toEqual([]);

    // A plain checkout: new code, no sessions/, no memories/.
    const checkout = tempDir();
    writeFileSync(join(checkout, 'app.py'), 'v2\n');
    const second = await createOnHead(store, checkout, { lineage: 'co', kind: 'workspace', boundMs: 1000, inheritMissing: LAYOUT });
    expect(second.inherited).toEqual(['memories', 'sessions']);
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(second.manifest.id, out);
    expect(readFileSync(join(out, 'app.py'), 'utf8')).toBe('v2\n');
    expect(readdirSync(join(out, 'sessions'))).toEqual(['r1.jsonl']);
    expect(readFileSync(join(out, 'memories/MEMORY.md'), 'utf8')).toBe('# from the run\n');

    // A checkout with its own memories/ (a user's edit) but no sessions/: memories/ is taken from it.
    mkdirSync(join(checkout, 'memories'));
    writeFileSync(join(checkout, 'memories/MEMORY.md'), '# edited by hand\n');
    const third = await createOnHead(store, checkout, { lineage: 'co', kind: 'workspace', boundMs: 1000, inheritMissing: LAYOUT });
    expect(third.inherited).toEqual(['sessions']);
    const out3 = join(tempDir(), 'out3');
    await store.restoreToDirectory(third.manifest.id, out3);
    expect(readdirSync(join(out3, 'sessions'))).toEqual(['r1.jsonl']);
    expect(readFileSync(join(out3, 'memories/MEMORY.md'), 'utf8')).toBe('# edited by hand\n');

    // --full has no parent to keep them from: nothing is inherited.
    const full = await createOnHead(store, checkout, { lineage: 'co', kind: 'workspace', boundMs: 1000, inheritMissing: LAYOUT, full: true });
    expect(full.inherited).toEqual([]);
  });

  it("keeps another run's rollout records that a stale copy lacks, also when that run lands during the pack", async () => {
    // New-user trial (#10): restore the head, edit MEMORY.md by hand, meanwhile a session lands; then
    // `snapshot create` of the edited copy dropped that session's record and rollout summary from the head.
    const store = await openStore(tempDir());
    const RECORDS = ['sessions', 'memories/rollout_summaries', 'memories/raw_memories'];
    const write = (root: string, rel: string, text: string): void => {
      mkdirSync(join(root, rel, '..'), { recursive: true });
      writeFileSync(join(root, rel), text);
    };
    const a = tempDir();
    write(a, 'app.py', 'v1\n');
    write(a, 'sessions/20261201T000000000Z-aaaaaaaaaa.jsonl', 'a\n');
    write(a, 'memories/rollout_summaries/20261201T000000000Z-aaaaaaaaaa.md', 'a\n');
    write(a, 'memories/MEMORY.md', '# after a\n');
    await createOnHead(store, a, { lineage: 'rec', kind: 'workspace', boundMs: 1000, keepRecords: RECORDS });

    // The person's copy: restored now, edited later.
    const copy = join(tempDir(), 'copy');
    await store.restoreToDirectory((await store.getHead('rec'))!, copy);
    write(copy, 'memories/MEMORY.md', '# edited by hand\n');

    // Session B lands on the head (its record, summary and raw memory).
    const b = join(tempDir(), 'b');
    await store.restoreToDirectory((await store.getHead('rec'))!, b);
    write(b, 'sessions/20261201T010000000Z-bbbbbbbbbb.jsonl', 'b\n');
    write(b, 'memories/rollout_summaries/20261201T010000000Z-bbbbbbbbbb.md', 'b\n');
    write(b, 'memories/raw_memories/20261201T010000000Z-bbbbbbbbbb.md', 'b\n');
    await createOnHead(store, b, { lineage: 'rec', kind: 'workspace', boundMs: 1000, keepRecords: RECORDS });

    for (const kind of ['memory', 'workspace'] as const) {
      const made = await createOnHead(store, copy, {
        lineage: 'rec',
        kind,
        boundMs: 1000,
        keepRecords: RECORDS,
        ...(kind === 'memory' ? { scope: LAYOUT } : {}),
      });
      expect(made.keptRecords.sort()).toEqual([
        'memories/raw_memories/20261201T010000000Z-bbbbbbbbbb.md',
        'memories/rollout_summaries/20261201T010000000Z-bbbbbbbbbb.md',
        'sessions/20261201T010000000Z-bbbbbbbbbb.jsonl',
      ]);
      const out = join(tempDir(), `out-${kind}`);
      await store.restoreToDirectory(made.manifest.id, out);
      expect(readdirSync(join(out, 'sessions')).sort()).toEqual(['20261201T000000000Z-aaaaaaaaaa.jsonl', '20261201T010000000Z-bbbbbbbbbb.jsonl']);
      expect(readdirSync(join(out, 'memories/rollout_summaries')).length).toBe(2);
      // The copy has no raw_memories/ at all: the head's is kept whole, not deleted with the missing directory.
      expect(readdirSync(join(out, 'memories/raw_memories'))).toEqual(['20261201T010000000Z-bbbbbbbbbb.md']);
      expect(readFileSync(join(out, 'memories/MEMORY.md'), 'utf8')).toBe('# edited by hand\n');
    }

    // A session that lands while the copy is packed: the retry on the new head keeps its records too.
    const c = join(tempDir(), 'c');
    await store.restoreToDirectory((await store.getHead('rec'))!, c);
    write(c, 'sessions/20261201T020000000Z-cccccccccc.jsonl', 'c\n');
    let landed = false;
    const racing = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'advanceHead') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<typeof store.advanceHead>) => {
          if (!landed) {
            landed = true;
            await createOnHead(store, c, { lineage: 'rec', kind: 'workspace', boundMs: 1000, keepRecords: RECORDS });
          }
          return store.advanceHead(...args);
        };
      },
    });
    const raced = await createOnHead(racing, copy, { lineage: 'rec', kind: 'workspace', boundMs: 10_000, keepRecords: RECORDS });
    expect(raced.conflicts).toBe(1);
    const out = join(tempDir(), 'out-raced');
    await store.restoreToDirectory(raced.manifest.id, out);
    expect(readdirSync(join(out, 'sessions'))).toContain('20261201T020000000Z-cccccccccc.jsonl');
  });
});
