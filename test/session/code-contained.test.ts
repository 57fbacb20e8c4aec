/**
 * Issue 10: branches piled up under contention, one per session that lost a head race, even when another
 * session had already put the same code on the head. `codeOnHead` decides whether a session that lost the
 * race still needs its branch: only when something it changed is not on the head as it left it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeOnHead } from '../../src/session/code-contained.js';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';

const LAYOUT = ['memories', 'sessions'];

describe('codeOnHead', () => {
  it('true when the head holds every change the session made, false when one of them is missing or different', async () => {
    const store = await openStore(tempDir());
    const ws = tempDir();
    mkdirSync(join(ws, 'src'));
    mkdirSync(join(ws, 'memories'));
    writeFileSync(join(ws, 'src/app.py'), 'def add(a, b):\n    return a - b\n');
    writeFileSync(join(ws, 'src/old.py'), 'old\n');
    const start = await store.create({ dir: ws }, { lineage: 'c', kind: 'workspace', parent: null });

    // Session A fixes the bug and deletes old.py; its code lands, and the head gets a memory note on top.
    writeFileSync(join(ws, 'src/app.py'), 'def add(a, b):\n    return a + b\n');
    rmSync(join(ws, 'src/old.py'));
    const a = await store.create({ dir: ws }, { lineage: 'c', kind: 'workspace', parent: start.id });
    writeFileSync(join(ws, 'memories/MEMORY.md'), '# a lesson\n');
    const head = await store.create({ dir: ws }, { lineage: 'c', kind: 'memory', parent: a.id, scope: LAYOUT });

    // Session B made the same fix from the same start (and wrote a different memory file): nothing to branch.
    writeFileSync(join(ws, 'memories/MEMORY.md'), '# another lesson\n');
    const same = await store.create({ dir: ws }, { lineage: 'c', kind: 'workspace', parent: start.id });
    expect(await codeOnHead(store, same.id, head.id, LAYOUT)).toBe(true);

    // Session C only fixed the bug (kept old.py): its one change is on the head too.
    writeFileSync(join(ws, 'src/old.py'), 'old\n');
    const subset = await store.create({ dir: ws }, { lineage: 'c', kind: 'workspace', parent: start.id });
    expect(await codeOnHead(store, subset.id, head.id, LAYOUT)).toBe(true);

    // Session D fixed it differently: its code is not on the head, it keeps its branch.
    writeFileSync(join(ws, 'src/app.py'), 'def add(a, b):\n    return sum((a, b))\n');
    const other = await store.create({ dir: ws }, { lineage: 'c', kind: 'workspace', parent: start.id });
    expect(await codeOnHead(store, other.id, head.id, LAYOUT)).toBe(false);

    // Session E added a file the head lacks.
    writeFileSync(join(ws, 'src/app.py'), 'def add(a, b):\n    return a + b\n');
    writeFileSync(join(ws, 'src/new.py'), 'new\n');
    const added = await store.create({ dir: ws }, { lineage: 'c', kind: 'workspace', parent: start.id });
    expect(await codeOnHead(store, added.id, head.id, LAYOUT)).toBe(false);

    // A fresh start (no parent) counts every file as changed: equal code only.
    rmSync(join(ws, 'src/new.py'));
    rmSync(join(ws, 'src/old.py'));
    const fresh = await store.create({ dir: ws }, { lineage: 'c2', kind: 'workspace', parent: null });
    expect(await codeOnHead(store, fresh.id, head.id, LAYOUT)).toBe(true);
    writeFileSync(join(ws, 'src/extra.py'), 'x\n');
    const fresh2 = await store.create({ dir: ws }, { lineage: 'c2', kind: 'workspace', parent: null });
    expect(await codeOnHead(store, fresh2.id, head.id, LAYOUT)).toBe(false);

    // A snapshot that cannot be read keeps the branch.
    expect(await codeOnHead(store, 'no-such-snapshot', head.id, LAYOUT)).toBe(false);
  });
});
