/**
 * Trial 22 F8: `snapshot verify` of a damaged lineage head printed "✓ verify: 0/1 ok" and no way out. It now ends
 * with ✗ and the hint a failing run gives (move the head with `lineage reset`), and still exits 1.
 */
import { closeSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('snapshot verify of a damaged head', () => {
  it('ends with ✗ and says how to repair the head', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const ws = tempDir();
    writeFileSync(join(ws, 'f.txt'), 'x'.repeat(10_000));
    const m = await store.create({ dir: ws }, { lineage: 'app', kind: 'workspace' });
    await store.advanceHead('app', null, m.id);
    const blob = store.blobs.pathOf(m.layers[0]!.digest);
    const fd = openSync(blob, 'r+');
    const b = Buffer.alloc(1);
    const at = Math.floor(m.layers[0]!.compressedBytes / 2);
    readSync(fd, b, 0, 1, at);
    b[0] = b[0]! ^ 0xff;
    writeSync(fd, b, 0, 1, at);
    closeSync(fd);
    const r = await execa(process.execPath, ['--import', 'tsx', MAIN, 'snapshot', 'verify', 'app'], { env: { MNEMARA_HOME: home }, reject: false });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`BAD  ${m.id}`);
    expect(r.stdout).toContain('hint: if it is a lineage head, move the head to an older good snapshot with `mnemara lineage reset LINEAGE SNAPSHOT`');
    expect(r.stderr).toContain('✗ verify: 0/1 ok');
    expect(r.stderr).not.toContain('✓ verify');
  }, 60_000);
});
