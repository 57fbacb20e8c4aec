/**
 * New-user trial 28 F11: apply's listing and --json showed a name holding the bytes 0xff 0xfe and a file literally
 * named `lit\xff\xfe.txt` alike (`\xNN` stood for both), while `snapshot patch` quotes names as git does. Apply now
 * lists every name in git's quoting (octal escapes in double quotes; a real backslash doubled), in text and --json.
 * Real trees, store and git.
 */
import { linkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyJson, describeApply } from '../../src/cli/commands/apply.js';
import { printableJson } from '../../src/cli/output.js';
import { applyToHost } from '../../src/snapshot/apply.js';
import { openStore } from '../../src/snapshot/index.js';
import { quoteName } from '../../src/snapshot/names.js';
import { tempDir } from './helpers.js';

const bytesName = (dir: string, latin1: string): Buffer => Buffer.concat([Buffer.from(`${dir}/`), Buffer.from(latin1, 'latin1')]);

describe('apply lists names in git quoting (trial 28 F11)', () => {
  it('tells a name with the bytes ff fe from one holding the text \\xff\\xfe, in text and --json', async () => {
    const [host, ran] = [tempDir(), tempDir()];
    writeFileSync(join(host, 'keep.txt'), 'keep\n');
    writeFileSync(join(ran, 'keep.txt'), 'keep\n');
    writeFileSync(bytesName(ran, 'bin\xff\xfe.txt'), 'bytes\n');
    linkSync(bytesName(ran, 'bin\xff\xfe.txt'), join(ran, 'nonutf_2.txt'));
    writeFileSync(join(ran, 'lit\\xff\\xfe.txt'), 'literal\n');
    writeFileSync(join(ran, 'nl\nx.txt'), 'newline\n');
    writeFileSync(join(ran, 'café.txt'), 'utf-8\n');
    const store = await openStore(join(tempDir(), 'store'));
    const m = await store.create({ dir: ran }, { lineage: 'names', kind: 'workspace' });

    const r = await applyToHost(store, m.id, host, { layoutDirs: ['memories', 'sessions'], force: true, check: true });
    const text = describeApply(r);
    expect(text.split('\n').slice(1)).toEqual([
      '  A "bin\\377\\376.txt"',
      '  A café.txt',
      '  A "lit\\\\xff\\\\xfe.txt"',
      '  A "nl\\nx.txt"',
      '  A nonutf_2.txt',
      '  L nonutf_2.txt = "bin\\377\\376.txt" (hard link: one file, two names)',
    ]);
    // --json goes through printableJson (emit): the quoted names hold no escaped byte, so they come out as they are.
    const json = JSON.parse(printableJson(applyJson(r))) as { added: string[]; linked: Array<{ path: string; to: string }> };
    expect(json.added).toEqual(['"bin\\377\\376.txt"', 'café.txt', '"lit\\\\xff\\\\xfe.txt"', '"nl\\nx.txt"', 'nonutf_2.txt']);
    expect(new Set(json.added).size).toBe(5);
    expect(json.linked).toEqual([{ path: 'nonutf_2.txt', to: '"bin\\377\\376.txt"' }]);
  });

  it('quoteName: plain names as they are, others in quotes with C and octal escapes', () => {
    expect(quoteName('src/app.js')).toBe('src/app.js');
    expect(quoteName('a "b".txt')).toBe('"a \\"b\\".txt"');
    expect(quoteName('tab\there')).toBe('"tab\\there"');
    expect(quoteName('bell\u0007\u001b')).toBe('"bell\\a\\033"');
    expect(quoteName(' lead')).toBe('" lead"');
    expect(quoteName('\u0085c1')).toBe('"\\302\\205c1"');
    expect(quoteName('d\uDCE9/x')).toBe('"d\\351/x"');
  });
});
