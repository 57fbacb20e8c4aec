import { chmodSync, linkSync, mkdirSync, symlinkSync, utimesSync } from 'node:fs';
import { lutimes, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { OnProgress } from '../config/progress.js';
import { UnsafeArchiveError } from './errors.js';
import { ArchiveBudget, guardMode, guardPath, guardSymlinkTarget, guardType } from './restore-guard.js';
import { displayName, fsPath, nameBytes } from './names.js';
import { PATH_MAX, TOO_LONG_TO_READ } from './limits.js';
import { readTar, type TarEntry } from './tar-read.js';
import { MergedTree, type TreeEntry } from './tree.js';
import type { RestoreLimits } from './types.js';
import { entryChunks, needsFchmod, SYNC_WRITE_BYTES, writeFileEntry, type ExtractedContent } from './write-entry.js';
import type { WriteQueue } from './write-queue.js';

/** How one archive is applied: its index in a layer chain, whether `.wh.` entries are whiteouts, a path filter. */
export interface ApplyOptions {
  layer: number;
  whiteouts: boolean;
  /** Keep only entries for which this is true (guarded segments); default everything. */
  keep?: (segments: string[]) => boolean;
  /**
   * Source mode, for a workspace read from a sandbox (never for a restore): FIFOs and device files are left
   * out and reported here instead of refusing the archive, as packing a host directory does. Everything else
   * is still refused.
   */
  onSkip?: (path: string, reason: string) => void;
}

const SPECIAL_TYPES = new Map([
  ['FIFO', 'FIFO'],
  ['CharacterDevice', 'device file'],
  ['BlockDevice', 'device file'],
]);

/**
 * Writes archives into `dest`, a new, empty directory nobody else writes to (a staging directory). Every
 * entry passes the restore guard first (paths, types, caps, setuid/setgid stripped). Symlinks are data, restored
 * as they are wherever they point; what keeps the restore safe is that the tree of what is on disk is mirrored
 * in memory, so no entry is ever written under a symlink or a file (whatever order the archive has), and files
 * are created with O_EXCL|O_NOFOLLOW. Several archives can be applied in order (a layer chain, OCI semantics:
 * later entries replace earlier ones, whiteouts delete). `finish()` applies directory modes and times last
 * (deepest first), so a read-only directory does not block its own content.
 * With a `WriteQueue`, directories, links and files up to `SYNC_WRITE_BYTES` are created on its writer thread
 * in the order decided here (the guard runs here either way); removals and larger files wait for it first.
 * On any error `dest` is left half-written: the caller closes the queue, then removes it.
 */
export class GuardedExtractor {
  readonly tree = new MergedTree();
  /**
   * Hard links kept by a path filter whose target the filter left out (`--path memories` with
   * `memories/n.md` linked to `notes/n.md`): nothing is on disk for them yet; `extractChain` gives each the
   * target's content in a second pass. `entry` is the placeholder in `tree` (a later entry may replace it).
   */
  readonly unresolved: Array<{ segments: string[]; target: string[]; entry: TreeEntry }> = [];
  readonly budget: ArchiveBudget;
  /** Directories made on disk, with the mode they were made with (so `finish` chmods only those that differ). */
  private readonly made: Map<string, number>;
  private lastReport = 0;
  /** Content bytes of every entry read so far, kept or left out by a path filter: what progress counts. */
  private scanned = 0;
  /** Bytes of the tar streams read so far (`streamed`). */
  private streamedBytes = 0;
  /** Whether the last entry seen was filtered by `keep` (what the progress message says). */
  private filtered = false;
  /** Too-deep or too-long subtrees already reported in source mode (see `sourcePath`). */
  private readonly tooDeep = new Set<string>();
  /** Read once: decides whether a new file needs an fchmod after open (mnemara never changes it). */
  private readonly umask = process.umask();

  constructor(
    private readonly dest: string,
    private readonly limits: RestoreLimits,
    private readonly progress?: { onProgress: OnProgress; step: string; totalBytes?: number },
    /** When given, each file's sha256 and stat key after writing are recorded here (not with a `queue`). */
    private readonly extracted?: ExtractedContent,
    /** When given, creation runs on its writer thread (see the class's docstring). */
    private readonly queue?: WriteQueue,
  ) {
    if (extracted && queue) throw new Error('GuardedExtractor: a write queue cannot record what it wrote');
    this.budget = new ArchiveBudget(limits);
    // Every stream this extractor reads (a sandbox's tar, each layer of a restore) passes the budget chunk by chunk.
    if (progress) this.budget.onChunk = (n) => this.streamed(n);
    this.made = new Map([[dest, -1]]);
  }

  /** The per-entry handler for `readTar` (or `readLayer`), for one archive. */
  handler(options: ApplyOptions): (entry: TarEntry) => Promise<void> {
    let ordinal = -1;
    return async (entry) => {
      ordinal += 1;
      // Source mode: a file that grew past what a restore accepts during the run is left out and listed, the
      // rest of the run's work is kept (refusing the whole snapshot lost it). Its bytes still pass the inflation check.
      if (options.onSkip && entry.size > 0 && !this.budget.fits(entry.size)) {
        this.budget.declareSkipped(entry.size);
        options.onSkip(displayName(entry.path.replace(/^(\.\/)+/, '')), this.budget.overReason(entry.size));
        return void entry.resume();
      }
      // Every entry is declared, kept or not: the inflation check compares against all of them.
      this.budget.declare(entry.path, entry.size);
      this.scanned += entry.size;
      this.report(options.keep !== undefined);
      const segments = this.sourcePath(entry, options);
      if (segments === undefined || segments.length === 0) return void entry.resume();
      const base = segments[segments.length - 1]!;
      const whiteout = options.whiteouts && base.startsWith('.wh.');
      // A whiteout is filtered by what it deletes (`dir/.wh.name` → dir/name; the opaque marker → dir).
      const subject = !whiteout ? segments : base === '.wh..wh..opq' ? segments.slice(0, -1) : [...segments.slice(0, -1), base.slice(4)];
      if (options.keep && !options.keep(subject)) return void entry.resume();
      if (whiteout) {
        entry.resume();
        this.budget.apply(0);
        await this.queue?.flush();
        for (const gone of this.tree.whiteout(segments, options.layer, entry.path)) {
          const target = join(this.dest, ...gone);
          await rm(fsPath(target), { recursive: true, force: true });
          this.forgetMade(target); // a later layer may create the directory again
        }
        return;
      }
      if (options.keep && entry.type === 'Link') {
        const target = guardPath(entry.linkpath ?? '', this.limits);
        if (!options.keep(target) && this.tree.get(target) === undefined) return this.deferLink(entry, segments, target, { layer: options.layer, ordinal });
      }
      if (options.onSkip && SPECIAL_TYPES.has(entry.type)) {
        options.onSkip(displayName(segments.join('/')), `${SPECIAL_TYPES.get(entry.type)!} cannot be snapshotted`);
        return;
      }
      if (options.onSkip && nameBytes(join(this.dest, ...segments)) >= PATH_MAX) {
        // The staging directory's own path plus this one reach PATH_MAX: it cannot be written, so it is listed,
        // once for the topmost such path (its parent, shorter, was not; parents come before children).
        if (nameBytes(join(this.dest, ...segments.slice(0, -1))) < PATH_MAX) options.onSkip(displayName(segments.join('/').slice(0, 200)), TOO_LONG_TO_READ);
        return void entry.resume();
      }
      await this.write(entry, segments, { layer: options.layer, ordinal });
    };
  }

  private async write(entry: TarEntry, segments: string[], source: { layer: number; ordinal: number }): Promise<void> {
    const type = guardType(entry.type, entry.path);
    this.budget.apply(type === 'file' ? entry.size : 0);
    const mode = guardMode(entry.mode, type);
    const mtime = entry.mtime?.getTime() ?? Date.now();
    const target = join(this.dest, ...segments);
    let linkpath: string | undefined;
    if (type === 'symlink') {
      linkpath = entry.linkpath ?? '';
      guardSymlinkTarget(linkpath, entry.path);
    } else if (type === 'hardlink') {
      const to = guardPath(entry.linkpath ?? '', this.limits);
      if (this.tree.get(to)?.entry.type !== 'file') {
        throw new UnsafeArchiveError('hardlink to something that is not a file already extracted', entry.path);
      }
      linkpath = to.join('/');
    }
    const existing = this.tree.get(segments);
    // Validates the parent chain (no symlink or file on the way) before anything touches the disk.
    this.tree.put(segments, { type, mode, size: type === 'file' ? entry.size : 0, mtime, linkpath, source }, entry.path);
    if (existing && !(existing.entry.type === 'dir' && type === 'dir')) {
      await this.queue?.flush();
      await rm(fsPath(target), { recursive: true, force: true });
      this.forgetMade(target);
      // What was recorded at or under a replaced path no longer describes the disk.
      const rel = segments.join('/');
      if (this.extracted) for (const k of this.extracted.keys()) if (k === rel || k.startsWith(`${rel}/`)) this.extracted.delete(k);
    }
    if (segments.length > 1) this.mkdir(join(this.dest, ...segments.slice(0, -1)), 0o755);
    if (type === 'dir') {
      // Made with its own mode when that keeps it writable by us and the umask leaves it whole (most
      // directories: 0755), so `finish` need not chmod it; otherwise 0700 until `finish`.
      this.mkdir(target, (mode & 0o700) === 0o700 && (mode & ~this.umask & 0o777) === mode ? mode : 0o700);
      return void entry.resume();
    }
    if (type === 'symlink' && this.queue) {
      entry.resume();
      this.queue.symlink(fsPath(target), fsPath(linkpath!), mtime);
      return this.queue.room();
    }
    if (type === 'hardlink' && this.queue) {
      entry.resume();
      this.queue.link(fsPath(join(this.dest, ...linkpath!.split('/'))), fsPath(target));
      return this.queue.room();
    }
    if (type === 'symlink') {
      entry.resume();
      symlinkSync(fsPath(linkpath!), fsPath(target));
      await lutimes(fsPath(target), mtime / 1000, mtime / 1000).catch(() => {});
      return;
    }
    if (type === 'hardlink') {
      entry.resume();
      linkSync(fsPath(join(this.dest, ...linkpath!.split('/'))), fsPath(target));
      return;
    }
    if (this.queue && entry.size <= SYNC_WRITE_BYTES) {
      this.queue.file(fsPath(target), mode, mtime, await entryChunks(entry), needsFchmod(mode, this.umask));
      return this.queue.room();
    }
    await this.queue?.flush(); // a large file is streamed here, after what was queued before it
    const written = await writeFileEntry(entry, target, mode, mtime, this.extracted !== undefined, this.umask);
    if (written) this.extracted!.set(segments.join('/'), written);
  }

  /**
   * Bytes of the tar streams read (every chunk passes the budget's inflation check): progress counts the bytes as
   * they arrive, so one large file (2 GiB streamed out of the sandbox, or restored) reports as it goes, not once
   * at its header.
   */
  private streamed(bytes: number): void {
    this.streamedBytes += bytes;
    this.report(this.filtered);
  }

  /**
   * Progress (every 250 ms at most) as bytes of the archive read out of `totalBytes`: a restore limited to some
   * paths reads the whole archive to find them, so counting only what it writes would stall near 0%; its
   * events say so and how much was written.
   */
  private report(filtered: boolean): void {
    this.filtered = filtered;
    const now = Date.now();
    if (!this.progress || now - this.lastReport <= 250) return;
    this.lastReport = now;
    const { onProgress, step, totalBytes } = this.progress;
    onProgress({
      step,
      phase: 'progress',
      done: this.streamedBytes > 0 ? this.streamedBytes : this.scanned,
      total: totalBytes,
      unit: 'bytes',
      ...(filtered ? { message: `read of the archive (${this.budget.files} entries, ${this.budget.bytes} bytes of the paths asked for written)` } : {}),
    });
  }

  /**
   * The entry's guarded path. In source mode (`onSkip`: a snapshot being taken of a tree the agent wrote), a
   * path deeper or longer than a restore accepts is left out and reported once per too-deep subtree, as the
   * host walk does, instead of failing the whole snapshot; a restore (no `onSkip`) still refuses it.
   */
  private sourcePath(entry: TarEntry, options: ApplyOptions): string[] | undefined {
    try {
      return guardPath(entry.path, this.limits);
    } catch (err) {
      if (!options.onSkip || !(err instanceof UnsafeArchiveError) || !/^path (deeper|longer) than/.test(err.reason)) throw err;
      const shown = entry.path.split('/').filter((s) => s !== '' && s !== '.').slice(0, this.limits.maxDepth + 1).join('/').slice(0, 200);
      if (!this.tooDeep.has(shown)) {
        this.tooDeep.add(shown);
        options.onSkip(displayName(shown), `deeper or longer than a restore accepts (${this.limits.maxDepth} levels, ${this.limits.maxPathBytes} bytes)`);
      }
      return undefined;
    }
  }

  /** Records a hard link whose target a path filter leaves out (see `unresolved`); its parent directories are made now. */
  private async deferLink(entry: TarEntry, segments: string[], target: string[], source: { layer: number; ordinal: number }): Promise<void> {
    entry.resume();
    this.budget.apply(0);
    const placeholder: TreeEntry = { type: 'file', mode: guardMode(entry.mode, 'file'), size: 0, mtime: entry.mtime?.getTime() ?? Date.now(), source };
    const existing = this.tree.get(segments);
    this.tree.put(segments, placeholder, entry.path);
    if (existing) {
      await this.queue?.flush();
      await rm(fsPath(join(this.dest, ...segments)), { recursive: true, force: true });
      this.forgetMade(join(this.dest, ...segments));
    }
    if (segments.length > 1) this.mkdir(join(this.dest, ...segments.slice(0, -1)), 0o755);
    this.unresolved.push({ segments, target, entry: placeholder });
  }


  /** Forgets the directories made at or under `target` (removed from the disk). */
  private forgetMade(target: string): void {
    for (const m of this.made.keys()) if (m === target || m.startsWith(`${target}/`)) this.made.delete(m);
  }

  private mkdir(path: string, mode: number): void {
    if (this.made.has(path)) return;
    if (this.queue) this.queue.mkdir(fsPath(path), mode);
    else mkdirSync(fsPath(path), { recursive: true, mode });
    this.made.set(path, mode & ~this.umask & 0o777); // what the disk has
  }

  /** Waits until every write decided so far is on disk (no-op without a queue); throws the writer's failure. */
  async flush(): Promise<void> {
    await this.queue?.flush();
  }

  /** Sets directory modes and times, deepest first (links are data: nothing about them is checked here). */
  async finish(): Promise<{ files: number; bytes: number }> {
    await this.flush();
    const dirs = [...this.tree.walk()].filter((w) => w.node.entry.type === 'dir').reverse();
    for (const { segments, node } of dirs) {
      const p = join(this.dest, ...segments);
      // Synchronous: thousands of directories, each a thread-pool round trip otherwise, and nothing to overlap with.
      if (this.made.get(p) !== node.entry.mode) chmodSync(fsPath(p), node.entry.mode);
      if (node.entry.source) utimesSync(fsPath(p), node.entry.mtime / 1000, node.entry.mtime / 1000);
    }
    return { files: this.budget.files, bytes: this.budget.bytes };
  }
}

/**
 * Extracts one uncompressed tar stream (not a layer: `.wh.` names are plain files) into `dest` through a
 * `GuardedExtractor`. Throws `UnsafeArchiveError`; returns entry count and content bytes.
 */
export async function extractTar(
  input: Readable,
  dest: string,
  options: {
    limits: RestoreLimits;
    onProgress?: OnProgress;
    step?: string;
    totalBytes?: number;
    /** Source mode (see `ApplyOptions.onSkip`): leave out FIFOs and devices, reported here. */
    onSkip?: (path: string, reason: string) => void;
    /** Filled with each file's sha256 and stat key as written (for packing the result without re-reading). */
    extracted?: ExtractedContent;
  },
): Promise<{ files: number; bytes: number }> {
  const x = new GuardedExtractor(
    dest,
    options.limits,
    options.onProgress ? { onProgress: options.onProgress, step: options.step ?? 'restore', totalBytes: options.totalBytes } : undefined,
    options.extracted,
  );
  await readTar(input, x.handler({ layer: 0, whiteouts: false, ...(options.onSkip ? { onSkip: options.onSkip } : {}) }), (n) =>
    x.budget.onInflated(n),
  ).catch((err: unknown) => {
    input.destroy();
    throw err;
  });
  return x.finish();
}
