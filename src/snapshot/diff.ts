import { readEntryBuffer, readTar } from './tar-read.js';
import type { DirectoryStore } from './store/dir-store.js';
import { resolveHardLink, type TreeEntry } from './tree.js';
import { unifiedDiff } from './line-diff.js';

/** Paths whose changes get a text diff by default: the memory layout (DESIGN.md). */
export const DEFAULT_TEXT_DIFF_PATHS = ['memories', 'sessions'];
const MAX_TEXT_BYTES = 1024 * 1024;

/** Differences between two snapshots' merged trees; paths are `/`-separated, sorted. */
export interface SnapshotDiff {
  from: string;
  to: string;
  added: string[];
  removed: string[];
  /** Content, type, mode or link target differ. */
  changed: string[];
  /** Unified text diffs of changed/added/removed text files under `textPaths`, by path. */
  textDiffs: Record<string, string>;
}

function describe(e: TreeEntry): string {
  return `${e.type}:${e.mode.toString(8)}:${e.hash ?? ''}:${e.linkpath ?? ''}`;
}

/**
 * Compares snapshots `a` and `b` by content hash (mtimes are ignored). Text diffs cover files up to 1 MiB
 * under `textPaths` (default `memories/`, `sessions/`) that are valid UTF-8. Throws what `get`/pass 1 throw.
 */
export async function diffSnapshots(store: Pick<DirectoryStore, 'tree' | 'exportTar'>, a: string, b: string, textPaths = DEFAULT_TEXT_DIFF_PATHS): Promise<SnapshotDiff> {
  const [ta, tb] = await Promise.all([store.tree(a, { hashContent: true }), store.tree(b, { hashContent: true })]);
  // A hard link compares as the file it is (one inode, two names), not as a change of type.
  const flat = (t: typeof ta): Map<string, TreeEntry> => new Map([...t.walk()].map((w) => [w.path, resolveHardLink(t, w.node.entry)]));
  const fa = flat(ta);
  const fb = flat(tb);
  const diff: SnapshotDiff = { from: a, to: b, added: [], removed: [], changed: [], textDiffs: {} };
  for (const [p, e] of fb) {
    const old = fa.get(p);
    if (!old) diff.added.push(p);
    else if (describe(old) !== describe(e)) diff.changed.push(p);
  }
  for (const p of fa.keys()) if (!fb.has(p)) diff.removed.push(p);
  for (const l of [diff.added, diff.removed, diff.changed]) l.sort();
  const inText = (p: string): boolean => textPaths.some((t) => p === t || p.startsWith(`${t}/`));
  const wanted = (m: Map<string, TreeEntry>, paths: string[]): string[] =>
    paths.filter((p) => inText(p) && m.get(p)?.type === 'file' && m.get(p)!.size <= MAX_TEXT_BYTES);
  const oldText = await readFiles(store, a, wanted(fa, [...diff.changed, ...diff.removed]));
  const newText = await readFiles(store, b, wanted(fb, [...diff.changed, ...diff.added]));
  for (const p of [...new Set([...oldText.keys(), ...newText.keys()])].sort()) {
    const before = oldText.get(p) ?? '';
    const after = newText.get(p) ?? '';
    const d = unifiedDiff(before, after, oldText.has(p) ? `a/${p}` : '/dev/null', newText.has(p) ? `b/${p}` : '/dev/null');
    if (d) diff.textDiffs[p] = d;
  }
  return diff;
}

/** Contents of `paths` in snapshot `id` that decode as UTF-8 text. */
async function readFiles(store: Pick<DirectoryStore, 'exportTar'>, id: string, paths: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (paths.length === 0) return out;
  const want = new Set(paths);
  const tar = await store.exportTar(id, { paths });
  const decoder = new TextDecoder('utf-8', { fatal: true });
  await readTar(tar, async (e) => {
    if (e.type !== 'File' || !want.has(e.path)) return;
    const buf = await readEntryBuffer(e);
    try {
      out.set(e.path, decoder.decode(buf));
    } catch {
      // binary: listed as changed, no text diff
    }
  });
  return out;
}
