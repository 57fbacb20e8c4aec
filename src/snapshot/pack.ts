import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, type BigIntStats, type Stats } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { OnProgress } from '../config/progress.js';
import { SourceChangedError } from './errors.js';
import type { InPlaceEntry, TarWriter } from './tar-write.js';
import type { ExtractedContent } from './write-entry.js';
import { MergedTree, type TreeEntry } from './tree.js';
import { statKey, walkTree, type WalkEntry, type WalkSkip } from './walk.js';
import { displayName, fsPath } from './names.js';
import { HardLinkGroups } from './hardlinks.js';
import { fileOverLimit } from './fits.js';

/** Files up to this size are read whole into memory, checked, and retried if they changed meanwhile. */
const SMALL_FILE_BYTES = 8 * 1024 * 1024;
const SMALL_FILE_ATTEMPTS = 3;
/** A file whose ctime is this close to the pack's start gets no fingerprint: a write in the same tick could keep it. */
const RACY_MS = 2000;

export interface PackOptions {
  /**
   * Merged tree of the parent snapshot (every file with its content hash): write only what differs.
   * `null` = full layer. It is updated in place into the new snapshot's tree (returned as `tree`).
   */
  parent: MergedTree | null;
  /** Layer number the new entries get in the tree (the parent chain's length; 0 for a full layer). */
  layer?: number;
  /**
   * Host directories only: record stat fingerprints in the tree, and take a file whose fingerprint equals
   * the parent's as unchanged without reading it. Off for a tar source extracted to a temporary directory.
   */
  fingerprints?: boolean;
  /**
   * Tar sources: sha256 and stat key of each file as the extraction wrote it (`ExtractedContent`). A file
   * whose stat key is unchanged and whose hash equals the parent's is taken as unchanged without reading it.
   */
  extracted?: ExtractedContent;
  /** Guarded path segments the source covers; paths outside are inherited from the parent. Default: all. */
  scope?: string[][];
  ignore: (path: string) => boolean;
  onSkip: (skip: WalkSkip) => void;
  /** A file larger than this (bytes; the restore limit on total content) is refused before it is read. */
  maxFileBytes?: number;
  onProgress?: OnProgress;
}

/** What went into the layer: entries (incl. whiteouts) and file content bytes. */
export interface PackResult {
  entries: number;
  contentBytes: number;
  files: number;
  /** Files taken as unchanged by their stat fingerprint, without reading them. */
  unread: number;
  /** The new snapshot's merged tree (the parent's, updated), for its tree index. */
  tree: MergedTree;
}

/** `dev:ino:size:mtimeMs:ctimeMs:mode`, or undefined when the file changed too recently to trust it. */
function fingerprintOf(stats: Stats, packStarted: number): string | undefined {
  if (!(stats.ctimeMs < packStarted - RACY_MS) || !(stats.mtimeMs < packStarted - RACY_MS)) return undefined;
  return statKey(stats);
}

/**
 * Writes one layer of `root` onto `writer`: a full layer, or (with `parent`) only entries that differ from
 * the parent's tree plus `.wh.<name>` whiteouts for what was deleted. Content is compared by sha256, so a
 * touched-but-identical file costs nothing (its new mtime is not recorded). Setuid/setgid bits are not kept.
 * A small file that changes while read is re-read (3 attempts); a large one, or one that keeps changing,
 * throws `SourceChangedError`, and the caller discards the layer — nothing half-written is stored.
 */
export async function packLayer(root: string, writer: TarWriter, options: PackOptions): Promise<PackResult> {
  const tree = options.parent ?? new MergedTree();
  const result: PackResult = { entries: 0, contentBytes: 0, files: 0, unread: 0, tree };
  const scopes = options.scope ?? [[]];
  const visited = new Map<string, WalkEntry['type']>();
  const started = Date.now();
  let lastReport = started;
  const source = { layer: options.layer ?? 0, ordinal: 0 };
  const links = new HardLinkGroups();
  /** Paths whose content this layer writes: a hard link to one of them is written again (it names the new file). */
  const rewritten = new Set<string>();

  const emit = async (entry: WalkEntry): Promise<void> => {
    visited.set(entry.path, entry.type);
    const prev = options.parent?.get(entry.segments)?.entry;
    if (entry.type === 'dir') {
      const mode = Number(entry.stats.mode) & 0o1777;
      if (prev?.type === 'dir' && prev.mode === mode) return;
      await writer.header({ path: entry.path, type: 'Directory', mode, mtime: entry.stats.mtimeMs });
      tree.put(entry.segments, { type: 'dir', mode, size: 0, mtime: Math.floor(entry.stats.mtimeMs), source }, entry.path);
      result.entries += 1;
      return;
    }
    if (entry.type === 'symlink') {
      if (prev?.type === 'symlink' && prev.linkpath === entry.linkpath) return;
      await writer.header({ path: entry.path, type: 'SymbolicLink', mode: 0o777, mtime: entry.stats.mtimeMs, linkpath: entry.linkpath });
      tree.put(entry.segments, { type: 'symlink', mode: 0o777, size: 0, mtime: Math.floor(entry.stats.mtimeMs), linkpath: entry.linkpath!, source }, entry.path);
      result.entries += 1;
      return;
    }
    const linkTo = links.targetOf(entry.stats);
    if (linkTo !== undefined) {
      const mode = Number(entry.stats.mode) & 0o1777;
      result.files += 1;
      if (prev?.type === 'hardlink' && prev.linkpath === linkTo && prev.mode === mode && !rewritten.has(linkTo)) return;
      await writer.header({ path: entry.path, type: 'Link', mode, mtime: entry.stats.mtimeMs, linkpath: linkTo });
      tree.put(entry.segments, { type: 'hardlink', mode, size: 0, mtime: Math.floor(entry.stats.mtimeMs), linkpath: linkTo, source }, entry.path);
      result.entries += 1;
      return;
    }
    // Every way out below that keeps the file in the snapshot makes it the content of its hard-link group.
    links.packed(entry.path, entry.stats);
    const known = options.extracted?.get(entry.path);
    if (known && prev?.type === 'file' && prev.hash === known.hash && prev.mode === (entry.stats.mode & 0o1777) && known.key === statKey(entry.stats)) {
      result.files += 1;
      result.unread += 1;
      delete prev.fingerprint;
      return;
    }
    const fingerprint = options.fingerprints ? fingerprintOf(entry.stats, started) : undefined;
    if (fingerprint !== undefined && prev?.type === 'file' && prev.hash && prev.fingerprint === fingerprint) {
      // Same inode, size, mtime, ctime and mode as when the parent hashed it, and ctime was already old
      // then: no write can have happened since without moving ctime.
      result.files += 1;
      result.unread += 1;
      return;
    }
    if (entry.stats.size > (options.maxFileBytes ?? Infinity)) {
      // Refused before a byte is read: packing gigabytes that no restore would accept helps nobody.
      throw fileOverLimit(entry.path, entry.stats.size, options.maxFileBytes!);
    }
    let packed: PackedFile;
    // A large file takes long to hash and compress (2 GiB: over a minute): its bytes are reported as they go.
    const onBytes = options.onProgress
      ? (done: number, total: number): void => {
          const t = Date.now();
          if (t - lastReport <= 250) return;
          lastReport = t;
          options.onProgress!({ step: 'snapshot', phase: 'progress', done, total, unit: 'bytes', message: displayName(entry.path) });
        }
      : undefined;
    try {
      packed = await packFile(root, entry.path, prev, writer, onBytes);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') {
        // Not ours to read (mode 0000, another user's): left out and reported, like a FIFO.
        visited.delete(entry.path);
        links.forget(entry.path, entry.stats);
        options.onSkip({ path: displayName(entry.path), reason: `file cannot be read (${code}): left out` });
        return;
      }
      if (code !== 'ENOENT') throw err;
      links.forget(entry.path, entry.stats);
      visited.delete(entry.path); // deleted between the walk and the read: it is simply not in the snapshot
      return;
    }
    result.files += 1;
    if (packed.written) {
      rewritten.add(entry.path);
      result.entries += 1;
      result.contentBytes += packed.size;
      tree.put(
        entry.segments,
        { type: 'file', mode: packed.mode, size: packed.size, mtime: packed.mtime, hash: packed.hash, ...(fingerprint ? { fingerprint } : {}), source },
        entry.path,
      );
    } else if (prev) {
      if (fingerprint) prev.fingerprint = fingerprint;
      else delete prev.fingerprint;
    }
    const now = Date.now();
    if (options.onProgress && now - lastReport > 250) {
      lastReport = now;
      options.onProgress({ step: 'snapshot', phase: 'progress', done: result.files, unit: 'files', message: displayName(entry.path) });
    }
  };

  for (const scope of scopes) {
    for (let k = 1; k < scope.length; k++) {
      const anc = scope.slice(0, k);
      const stats = await lstat(fsPath(join(root, ...anc))).catch(() => null);
      if (!stats?.isDirectory()) break;
      await emit({ path: anc.join('/'), segments: anc, type: 'dir', stats });
    }
    for await (const entry of walkTree(root, scope, { ignore: options.ignore, onSkip: options.onSkip })) await emit(entry);
  }

  if (options.parent) {
    const whiteout = async (segments: string[]): Promise<void> => {
      const path = [...segments.slice(0, -1), `.wh.${segments[segments.length - 1]!}`].join('/');
      await writer.file({ path, mode: 0o644, mtime: 0 }, Buffer.alloc(0));
      tree.whiteout(path.split('/'), source.layer, path);
      result.entries += 1;
    };
    const sweep = async (segments: string[], entry: TreeEntry, children: MergedTree['root']['children']): Promise<void> => {
      const path = segments.join('/');
      if (segments.length > 0) {
        const now = visited.get(path);
        if (now === undefined) {
          if (!options.ignore(path)) await whiteout(segments);
          return;
        }
        if (now !== 'dir' || entry.type !== 'dir') return;
      }
      // Copied first: a whiteout removes the child from this very map.
      for (const [name, child] of [...(children ?? [])]) await sweep([...segments, name], child.entry, child.children);
    };
    for (const scope of scopes) {
      const node = options.parent.get(scope);
      if (node) await sweep(scope, node.entry, node.children);
    }
  }
  return result;
}

/**
 * Reads exactly `size` bytes with synchronous calls (small files: a thread-pool round trip per call would
 * cost more than the read). `null` when the file is shorter or longer than `size` now.
 */
export function readWhole(fd: number, size: number): Buffer | null {
  const buf = Buffer.allocUnsafe(size + 1);
  let got = 0;
  for (;;) {
    const n = readSync(fd, buf, got, buf.length - got, got);
    if (n === 0) break;
    got += n;
    if (got > size) return null;
  }
  return got === size ? buf.subarray(0, size) : null;
}

/**
 * Reads exactly `dst.length` bytes into `dst` with synchronous calls; false when the file is shorter or longer
 * than that now (one byte more is probed for).
 */
export function readInto(fd: number, dst: Buffer): boolean {
  let got = 0;
  while (got < dst.length) {
    const n = readSync(fd, dst, got, dst.length - got, got);
    if (n === 0) return false;
    got += n;
  }
  return readSync(fd, PROBE, 0, 1, got) === 0;
}

const PROBE = Buffer.alloc(1);

export function sameVersion(a: BigIntStats, b: BigIntStats): boolean {
  return a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.ino === b.ino;
}

/** What `packFile` did: `written` false when the content equals the parent's copy; `size` in bytes, `mtime` in ms. */
interface PackedFile {
  written: boolean;
  size: number;
  mode: number;
  mtime: number;
  hash: string;
}

/** Packs one regular file, unless it equals the parent's copy (same size, mode and sha256). */
/** `onBytes(done, total)`: bytes of a large file read so far (called per chunk; the caller throttles). */
type OnBytes = (done: number, total: number) => void;

async function packFile(root: string, path: string, prev: TreeEntry | undefined, writer: TarWriter, onBytes?: OnBytes): Promise<PackedFile> {
  const abs = fsPath(join(root, ...path.split('/')));
  for (let attempt = 0; attempt < SMALL_FILE_ATTEMPTS; attempt++) {
    // Small files take synchronous calls: a thread-pool round trip per open/stat/close cost more than the read.
    const fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    let buf: Buffer | null;
    let before: BigIntStats;
    let slot: InPlaceEntry | null = null;
    try {
      before = fstatSync(fd, { bigint: true });
      if (!before.isFile()) continue;
      if (before.size > BigInt(SMALL_FILE_BYTES)) break;
      const size = Number(before.size);
      // Most files fit in what is left of the stream's current buffer: read there, no copy of their own.
      slot = writer.inPlace({ path, mode: Number(before.mode) & 0o1777, mtime: Number(before.mtimeNs / 1_000_000n) }, size);
      buf = slot ? (readInto(fd, slot.content) ? slot.content : null) : readWhole(fd, size);
      if (buf === null || !sameVersion(before, fstatSync(fd, { bigint: true }))) continue;
    } finally {
      closeSync(fd);
    }
    const mode = Number(before.mode) & 0o1777;
    const hash = createHash('sha256').update(buf).digest('hex');
    const mtime = Number(before.mtimeNs / 1_000_000n);
    const same = prev?.type === 'file' && prev.size === buf.length && prev.mode === mode && prev.hash === hash;
    if (!same) await (slot ? slot.commit() : writer.file({ path, mode, mtime }, buf));
    return { written: !same, size: buf.length, mode, mtime, hash };
  }
  const probe = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const isLarge = await probe.stat().then((st) => st.isFile() && st.size > SMALL_FILE_BYTES, () => false);
  await probe.close();
  if (!isLarge) throw new SourceChangedError(path);
  return packLargeFile(abs, path, prev, writer, onBytes);
}

/**
 * Streams a large file into the layer. Its header (with the size) is written before the content, so a change
 * noticed while streaming cannot be undone in place: it throws `SourceChangedError` and the caller discards
 * the whole layer.
 */
async function packLargeFile(abs: string | Buffer, path: string, prev: TreeEntry | undefined, writer: TarWriter, onBytes?: OnBytes): Promise<PackedFile> {
  const fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const before = await fh.stat({ bigint: true });
    const size = Number(before.size);
    const mode = Number(before.mode) & 0o1777;
    const mtime = Number(before.mtimeNs / 1_000_000n);
    if (prev?.type === 'file' && prev.size === size && prev.mode === mode) {
      const h = createHash('sha256');
      let hashed = 0;
      for await (const c of fh.createReadStream({ autoClose: false, start: 0, highWaterMark: 1024 * 1024 })) {
        h.update(c as Buffer);
        hashed += (c as Buffer).length;
        onBytes?.(hashed, size);
      }
      if (!sameVersion(before, await fh.stat({ bigint: true }))) throw new SourceChangedError(path);
      const hash = h.digest('hex');
      if (prev.hash === hash) return { written: false, size, mode, mtime, hash };
    }
    await writer.header({ path, type: 'File', mode, mtime, size });
    let read = 0;
    const h = createHash('sha256');
    if (size > 0) {
      for await (const c of fh.createReadStream({ autoClose: false, start: 0, end: size - 1, highWaterMark: 1024 * 1024 })) {
        read += (c as Buffer).length;
        h.update(c as Buffer);
        await writer.write(c as Buffer);
        onBytes?.(read, size);
      }
    }
    if (read !== size || !sameVersion(before, await fh.stat({ bigint: true }))) throw new SourceChangedError(path);
    await writer.pad(size);
    return { written: true, size, mode, mtime, hash: h.digest('hex') };
  } finally {
    await fh.close();
  }
}
