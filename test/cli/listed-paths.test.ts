/**
 * Trial 22 F2: `apply` printed an agent-made file name holding a line break as it is, so a name such as
 * `x\napplied … 0 added` forged lines of the report. Every listed path with a line break, a tab, a control
 * character or a blank at an end is shown as a JSON string (as git quotes such names); others as they are.
 */
import { describe, expect, it } from 'vitest';
import { describeApply } from '../../src/cli/commands/apply.js';
import { listedPath } from '../../src/cli/output.js';

describe('paths in the lines of a list', () => {
  it('are quoted when they could break the line or hide in it', () => {
    expect(listedPath('src/app.ts')).toBe('src/app.ts');
    expect(listedPath('dir with space/a b.txt')).toBe('dir with space/a b.txt');
    expect(listedPath('nl\nname.txt')).toBe('"nl\\nname.txt"');
    expect(listedPath('tab\tname')).toBe('"tab\\tname"');
    expect(listedPath(' lead')).toBe('" lead"');
    expect(listedPath('esc\u001b[31mred')).toBe('"esc\\u001b[31mred"');
  });

  it('keep apply to one line per file', () => {
    const forged = 'x\napplied 20261205T000000000Z-00000000 to /w: 0 added, 0 changed, 0 removed';
    const text = describeApply({ snapshot: 's', dir: '/w', applied: true, added: [forged, 'ok.txt'], changed: ['tab\tname'], removed: [] } as Parameters<typeof describeApply>[0]);
    expect(text.split('\n')).toHaveLength(4);
    expect(text).toContain(`  A ${JSON.stringify(forged)}`);
    expect(text).toContain('  M "tab\\tname"');
  });
});
