import { UnsafeArchiveError } from './errors.js';
import type { RestoreLimits } from './types.js';
import { nameBytes } from './names.js';

/** What an archive entry may be after the guard: anything else (devices, FIFOs, sparse …) is refused. */
export type GuardedType = 'file' | 'dir' | 'symlink' | 'hardlink';

const TYPE_MAP: Record<string, GuardedType> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Directory: 'dir',
  SymbolicLink: 'symlink',
  Link: 'hardlink',
};

/**
 * THE rule for names, shared by every end: `create`'s walk of a host directory leaves out (and lists) exactly the
 * paths this refuses, and every restore, `verify`, the sandbox's stream, deltas and `--path` apply it as is, so
 * a snapshot `create` took is one every restore accepts.
 *
 * Normalises an entry path from an archive into `/`-separated segments relative to the target, or throws
 * `UnsafeArchiveError` for: NUL bytes, absolute paths, `..` segments, a segment over 255 bytes, more than
 * `maxPathBytes` bytes (counted as on disk: an escaped non-UTF-8 byte is one byte, `names.ts`) or `maxDepth`
 * segments. POSIX names are bytes where only `/` separates and NUL ends: a backslash (`back\slash.txt`, systemd's
 * `dev-disk-by\x2dlabel.device`) or a leading `C:` is an ordinary character, never a separator or a drive.
 * `./` prefixes and empty segments are dropped; the archive root (`.` or `./`) gives `[]`.
 */
export function guardPath(raw: string, limits: Pick<RestoreLimits, 'maxPathBytes' | 'maxDepth'>): string[] {
  if (nameBytes(raw) > limits.maxPathBytes) throw new UnsafeArchiveError(`path longer than ${limits.maxPathBytes} bytes`, raw.slice(0, 200));
  if (raw.includes('\0')) throw new UnsafeArchiveError('path contains a NUL byte', raw);
  if (raw.startsWith('/')) throw new UnsafeArchiveError('absolute path', raw);
  const segments: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') throw new UnsafeArchiveError('path contains a ".." segment', raw);
    if (nameBytes(seg) > 255) throw new UnsafeArchiveError('path segment longer than 255 bytes', raw.slice(0, 200));
    segments.push(seg);
    if (segments.length > limits.maxDepth) throw new UnsafeArchiveError(`path deeper than ${limits.maxDepth} directories`, raw.slice(0, 200));
  }
  return segments;
}

/** Maps a tar entry type to the kinds a restore accepts; throws for devices, FIFOs and anything unknown. */
export function guardType(type: string, path: string): GuardedType {
  const t = TYPE_MAP[type];
  if (!t) throw new UnsafeArchiveError(`entry type ${type} is not allowed (only files, directories and links)`, path);
  return t;
}

/** Permission bits kept on restore: setuid and setgid are stripped, the sticky bit and rwx kept. */
export function guardMode(mode: number | undefined, type: GuardedType): number {
  const fallback = type === 'dir' ? 0o755 : 0o644;
  return (mode ?? fallback) & 0o1777;
}

/**
 * Checks a symlink target before it is recorded: not empty and no NUL byte (no filesystem can hold either).
 * Anything else is kept as data, absolute and outward targets included: a restore never writes through a
 * link (see `GuardedExtractor`), so where a link points cannot make the restore write outside its target.
 */
export function guardSymlinkTarget(target: string, entryPath: string): void {
  if (target === '' || target.includes('\0')) throw new UnsafeArchiveError('symlink with an empty or NUL target', entryPath);
}

/**
 * Counts what an archive costs as it is read and throws once a cap is passed. `declare` runs for every entry
 * before its content is read, whether the reader keeps it or not (declared size); `onInflated` with every byte
 * count the tar reader consumes (`readTar`'s `onConsumed`, so never ahead of the header declaring them): a stream that inflates past what its headers declared (plus room for headers) is a
 * decompression bomb and is stopped there. Caps apply to the whole archive, so a restore limited to some paths
 * accepts exactly the archives a full restore accepts. `files`/`bytes` count what the reader applied (`apply`).
 */
export class ArchiveBudget {
  /** Entries and content bytes the reader applied (written, recorded), for its report. */
  files = 0;
  bytes = 0;
  private declaredFiles = 0;
  private declaredBytes = 0;
  private inflated = 0;
  private skippedBytes = 0;

  constructor(private readonly limits: RestoreLimits) {}

  /** An entry's header was read: `size` = the content bytes it declares. Throws past `maxFiles`/`maxTotalBytes`. */
  declare(path: string, size: number): void {
    this.declaredFiles += 1;
    this.declaredBytes += size;
    if (this.declaredFiles > this.limits.maxFiles) throw new UnsafeArchiveError(`more than ${this.limits.maxFiles} entries`, path);
    if (this.declaredBytes > this.limits.maxTotalBytes) throw new UnsafeArchiveError(`more than ${this.limits.maxTotalBytes} bytes of content`, path);
  }

  /** Whether an entry of `size` content bytes can still be declared without passing `maxTotalBytes`. */
  fits(size: number): boolean {
    return size <= this.limits.maxTotalBytes && this.declaredBytes + size <= this.limits.maxTotalBytes;
  }

  /** Why `fits(size)` is false, for a `skipped` entry (bytes are apparent sizes: a sparse file counts whole). */
  overReason(size: number): string {
    const limit = this.limits.maxTotalBytes;
    return size > limit
      ? `${size} bytes, over the restore limit of ${limit} bytes of content: left out so the rest could be snapshotted (add it to snapshot.ignore or delete it)`
      : `${size} bytes would take the snapshot over the restore limit of ${limit} bytes of content: left out so the rest could be snapshotted (add large files to snapshot.ignore or delete them)`;
  }

  /**
   * An entry left out (source mode) that the reader still consumes: its bytes count toward the inflation
   * check's allowance but not toward `maxTotalBytes`/`maxFiles`.
   */
  declareSkipped(size: number): void {
    this.skippedBytes += size;
  }

  /** The reader kept a declared entry (`size` content bytes). */
  apply(size: number): void {
    this.files += 1;
    this.bytes += size;
  }

  /** `declare` and `apply` at once, for readers that keep every entry. */
  onHeader(path: string, size: number): void {
    this.declare(path, size);
    this.apply(size);
  }

  /** Told the size of every chunk that passed the inflation check: how progress counts bytes as they arrive. */
  onChunk?: (chunkBytes: number) => void;

  onInflated(chunkBytes: number): void {
    this.inflated += chunkBytes;
    // 16 KiB a header covers pax records with two 4 KiB paths; 1 MiB, metadata records and end-of-archive padding.
    const allowed = this.declaredBytes + this.skippedBytes + (this.declaredFiles + 2) * 16384 + 1024 * 1024;
    if (this.inflated > allowed && this.inflated > this.limits.maxTotalBytes / 1024) {
      throw new UnsafeArchiveError(
        `archive inflates to more than its entries declare (${this.inflated} bytes for ${this.declaredBytes} declared): decompression bomb or trailing garbage`,
      );
    }
    this.onChunk?.(chunkBytes);
  }
}
