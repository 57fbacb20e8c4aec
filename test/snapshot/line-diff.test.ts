import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/snapshot/line-diff.js';

describe('unifiedDiff', () => {
  it('diffs an added file from /dev/null', () => {
    expect(unifiedDiff('', 'a\nb\n', '/dev/null', 'b/f')).toBe('--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+b\n');
  });

  it('keeps 3 lines of context and splits distant changes into hunks', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = before.replace('line 2', 'line two').replace('line 17', 'line seventeen');
    const d = unifiedDiff(before, after, 'a/f', 'b/f')!;
    expect(d.match(/^@@ .* @@$/gm)).toEqual(['@@ -1,6 +1,6 @@', '@@ -15,6 +15,6 @@']);
    expect(d).toContain('-line 2\n+line two\n');
  });

  it('returns an empty string for equal texts and null for huge ones', () => {
    expect(unifiedDiff('same\n', 'same\n', 'a', 'b')).toBe('');
    expect(unifiedDiff('x\n'.repeat(5000), 'y\n', 'a', 'b')).toBeNull();
  });
});
