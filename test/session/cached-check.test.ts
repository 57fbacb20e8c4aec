/**
 * The check a cached start must pass before the agent runs (`checkCachedFill`), on listings and a tree written
 * here from their formats: each kind of doubt is caught, and the replaced paths and their ancestors are judged
 * by the snapshot's tree alone (their inodes and ctimes are new by design).
 */
import { describe, expect, it } from 'vitest';
import { checkCachedFill, coveringPaths, parseStoredListing, serializeListing, type CachedStart } from '../../src/session/cached-restore.js';
import { MergedTree, type TreeEntry } from '../../src/snapshot/tree.js';
import type { ListedEntry, WorkspaceListing } from '../../src/session/workspace-listing.js';
import type { WorkspaceCacheEntry } from '../../src/sandbox/docker/workspace-cache.js';

const file = (mode: number, size: number): TreeEntry => ({ type: 'file', mode, size, mtime: 1_700_000_000_000, hash: 'a'.repeat(64), source: { layer: 0, ordinal: 0 } });
const dir = (mode = 0o755): TreeEntry => ({ type: 'dir', mode, size: 0, mtime: 1_700_000_000_000, source: { layer: 0, ordinal: 0 } });

function tree(): MergedTree {
  const t = new MergedTree();
  t.put(['src'], dir(), 'src');
  t.put(['src', 'a.ts'], file(0o644, 10), 'src/a.ts');
  t.put(['src', 'b.ts'], file(0o644, 20), 'src/b.ts');
  t.put(['memories'], dir(), 'memories');
  t.put(['memories', 'MEMORY.md'], file(0o644, 5), 'memories/MEMORY.md');
  t.put(['run.sh'], file(0o755, 7), 'run.sh');
  t.put(['odd-\\xff.txt'], file(0o600, 3), 'odd-\\xff.txt');
  return t;
}

const e = (type: string, mode: string, inode: string, size: number, ctime = '1700000000.0000000000'): ListedEntry => ({ type, mode, inode, size, ctime });

/** The listing as stored with the image, and the one after a fill that replaced `memories`. */
function listings(): { stored: WorkspaceListing; after: WorkspaceListing } {
  const common: Array<[string, ListedEntry]> = [
    ['src', e('d', '755', '11', 4096)],
    ['src/a.ts', e('f', '644', '12', 10)],
    ['src/b.ts', e('f', '644', '13', 20)],
    ['run.sh', e('f', '755', '14', 7)],
    ['odd-\\xff.txt', e('f', '600', '15', 3)],
  ];
  const stored = new Map<string, ListedEntry>([['', e('d', '755', '2', 4096)], ...common, ['memories', e('d', '755', '16', 4096)], ['memories/MEMORY.md', e('f', '644', '17', 4)]]);
  const after = new Map<string, ListedEntry>([
    ['', e('d', '755', '2', 4096, '1700000099.0000000000')],
    ...common,
    ['memories', e('d', '755', '30', 4096, '1700000099.0000000000')],
    ['memories/MEMORY.md', e('f', '644', '31', 5, '1700000099.0000000000')],
  ]);
  return { stored: { takenAt: 1, entries: stored }, after: { takenAt: 2, entries: after } };
}

function plan(stored: WorkspaceListing): CachedStart {
  return { entry: {} as WorkspaceCacheEntry, replace: ['memories'], tree: tree(), stored };
}

describe('checkCachedFill', () => {
  it('passes a fill that is the snapshot, and survives its listing being stored and read back', () => {
    const { stored, after } = listings();
    expect(checkCachedFill(after, plan(parseStoredListing(serializeListing(stored))))).toBeNull();
  });

  it('catches every kind of doubt', () => {
    const cases: Array<[string, (l: Map<string, ListedEntry>) => void, RegExp]> = [
      ['a file outside the replaced paths rewritten on the host (ctime moved)', (l) => l.set('src/a.ts', e('f', '644', '12', 10, '1700000050.0000000000')), /src\/a\.ts.*not as it was cached/],
      ['a file replaced by another inode', (l) => l.set('run.sh', e('f', '755', '99', 7)), /run\.sh.*not as it was cached/],
      ['a mode the snapshot does not have', (l) => l.set('run.sh', e('f', '4755', '14', 7)), /run\.sh.*mode 4755/],
      ['a size the snapshot does not have, in a replaced path', (l) => l.set('memories/MEMORY.md', e('f', '644', '31', 6)), /MEMORY\.md.*6 bytes/],
      ['a path the snapshot lacks', (l) => l.set('extra.txt', e('f', '644', '40', 1)), /1 path\(s\) the snapshot does not/],
      ['a path of the snapshot missing', (l) => l.delete('src/b.ts'), /src\/b\.ts.*missing/],
      ['another type', (l) => l.set('src/b.ts', e('l', '777', '13', 20)), /src\/b\.ts.*is a l/],
    ];
    for (const [what, change, reason] of cases) {
      const { stored, after } = listings();
      change(after.entries);
      expect(checkCachedFill(after, plan(stored)), what).toMatch(reason);
    }
  });
});

describe('coveringPaths', () => {
  it('keeps the fewest paths, none under another, and does not take a sibling prefix for a parent', () => {
    expect(coveringPaths(['src/a.ts', 'src', 'memories/x', 'memories', 'src-link', 'sessions/1.jsonl', 'src/b/c'])).toEqual(['memories', 'sessions/1.jsonl', 'src', 'src-link']);
  });
});
