/**
 * Thirteenth new-user trial F19: `memory forget` acted on the lineage, but `memory restore` read only the
 * checkout's archive.md, failed, and left an empty memories/ there, after which `apply` refused the lineage's
 * result. restore now acts where forget does (a lineage head, as a new memory snapshot), and a failed one writes
 * nothing into the checkout. A real store, a real deterministic consolidation and the real CLI; no Docker.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readArchive } from '../../src/memory/archive.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { openStore } from '../../src/snapshot/index.js';
import { CONFIG, raw, tempWorkspace, writeRollout } from '../memory/helpers.js';
import { tempDir } from '../snapshot/helpers.js';

function cli(home: string, args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { MNEMARA_HOME: home, MNEMARA_MEMORY_EXTRACTOR: 'deterministic', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }, reject: false });
}

describe('mnemara memory restore on a lineage', () => {
  it('brings an archived entry back onto the head; a failed restore writes nothing into the checkout', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r1', '2026-12-01T10:00:00Z', [raw('preference', 'The user said mid-run: “from now on always install with `npm ci`, never `npm install`”', 5)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    await writeRollout(paths, 'r2', '2026-12-02T10:00:00Z', [raw('fact', 'The task states that the repository changed: “we migrated from npm to pnpm”', 5)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const [archived] = await readArchive(paths);
    expect(archived?.text).toContain('npm ci');
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const head = await store.create({ dir: paths.workspaceDir }, { lineage: 'fw', kind: 'workspace' });
    await store.advanceHead('fw', null, head.id);

    const checkout = tempDir();
    writeFileSync(join(checkout, 'CMakeLists.txt'), 'project(fw)\n');
    const missing = await cli(home, ['memory', 'restore', 'm-00000000', '-w', checkout, '--json']);
    expect(missing.exitCode).toBe(2);
    expect(readdirSync(checkout)).toEqual(['CMakeLists.txt']);

    const restored = await cli(home, ['memory', 'restore', archived!.id, '--lineage', 'fw', '--json']);
    expect(restored.exitCode, restored.stderr).toBe(0);
    const r = JSON.parse(restored.stdout) as { head: string; restored: { id: string } };
    expect(r.restored.id).toBe(archived!.id);
    expect(await store.getHead('fw')).toBe(r.head);
    const shown = JSON.parse((await cli(home, ['memory', 'show', '--lineage', 'fw', '--json'])).stdout) as { entries: { id: string }[] };
    expect(shown.entries.map((e) => e.id)).toContain(archived!.id);
    expect(existsSync(join(checkout, 'memories'))).toBe(false);
  }, 120_000);
});
