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
});
