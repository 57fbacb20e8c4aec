import { describe, expect, it } from 'vitest';
import { compileIgnore } from '../../src/snapshot/ignore.js';

describe('ignore patterns', () => {
  const ignored = compileIgnore(['node_modules/.cache', '.git/objects/pack/tmp_*', '/build', '**/*.log', 'tmp/**']);

  it.each([
    ['node_modules/.cache', true],
    ['packages/a/node_modules/.cache', true],
    ['node_modules/.cache-not', false],
    ['.git/objects/pack/tmp_pack_123', true],
    ['.git/objects/pack/pack-1.idx', false],
    ['build', true],
    ['src/build', false],
    ['a/b/debug.log', true],
    ['tmp', true],
    ['x/tmp/y/z', true],
    ['src/index.ts', false],
  ])('%s → %s', (path, expected) => {
    expect(ignored(path)).toBe(expected);
  });

  it('skips blank lines and comments', () => {
    expect(compileIgnore(['', '# note', '  '])('anything')).toBe(false);
  });
});
