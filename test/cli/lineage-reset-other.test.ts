/**
 * Trial 22 F5: `lineage reset LINEAGE SNAPSHOT` moved a small lineage's head to another lineage's snapshot (a
 * pasted id of the wrong lineage) without a word; the next run would have started from that project's tree and
 * memory. It is now refused (exit 2, naming the snapshot's lineage) unless `--force`; a snapshot of the lineage
 * itself is reset to as before.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/snapshot/index.js';
import { tempDir } from '../snapshot/helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('lineage reset to a snapshot of another lineage', () => {
  it('is refused without --force, and done with it', async () => {
    const home = tempDir();
    const store = await openStore(join(home, 'store'));
    const snap = async (lineage: string, text: string) => {
      const ws = tempDir();
      writeFileSync(join(ws, 'f.txt'), text);
      const m = await store.create({ dir: ws }, { lineage, kind: 'workspace' });
      await store.advanceHead(lineage, await store.getHead(lineage), m.id);
      return m.id;
    };
    const small1 = await snap('small', 'one');
    const small2 = await snap('small', 'two');
    const big = await snap('big', 'other project');
    const cli = (...args: string[]) => execa(process.execPath, ['--import', 'tsx', MAIN, 'lineage', 'reset', ...args, '--json'], { env: { MNEMARA_HOME: home }, reject: false });

    const refused = await cli('small', big);
    expect(refused.exitCode).toBe(2);
    const { error } = JSON.parse(refused.stdout) as { error: { message: string; hint: string } };
    expect(error.message).toContain(`belongs to lineage big, not small`);
    expect(error.hint).toContain('--force');
    expect(await store.getHead('small')).toBe(small2);

    expect((await cli('small', small1)).exitCode).toBe(0);
    expect(await store.getHead('small')).toBe(small1);

    const forced = await cli('small', big, '--force');
    expect(forced.exitCode).toBe(0);
    expect(await store.getHead('small')).toBe(big);
  }, 120_000);
});
