/**
 * What a run changed, as a patch in git's format: the files that differ between two trees (a snapshot, or a
 * host directory as the base) with the memory layout, `.git/` and build caches left out, rendered by
 * `git diff --no-index --binary` (binary files as `GIT binary patch`, modes and symlinks included), so that
 * `git apply` takes it. git is the one tool that writes the patch format `git apply` reads, binary hunks
 * included (base85 of deflate with full blob ids); no npm library writes it, so this path runs git.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { execa } from 'execa';
import { MnemaraError } from '../config/errors.js';
import { readHostTree } from './host-tree.js';
import { compileIgnore } from './ignore.js';
import { displayName, fsPath } from './names.js';
import type { AnyStore } from './store/open.js';
import { resolveHardLink, type MergedTree } from './tree.js';

/**
 * Left out of every patch besides the caller's: git's own data, and byte-code and test caches that a run leaves
 * behind but nobody commits. Patterns as in `compileIgnore`.
 */
export const PATCH_EXCLUDES = ['.git', '__pycache__', '*.pyc', '.pytest_cache', '.mypy_cache', 'node_modules/.cache'];

/**
 * One side of a patch: a snapshot of the store (with its tree when the caller has read it already, with content
 * hashes: `store.tree(id, { hashContent: true })`), or a directory on the host.
 */
export type PatchSide = { snapshot: string; tree?: MergedTree } | { dir: string };

/** A file as far as git sees it: type, executable bit, content hash (sha256 hex) or link target. */
export interface FileState {
  type: 'file' | 'symlink';
  exec: boolean;
  hash?: string;
  size: number;
  linkpath?: string;
}

export interface PatchOptions {
  /** Top-level folders never in the patch: the memory layout (`memories`, `sessions`). */
  layoutDirs: string[];
  /** More ignore patterns (the store's `snapshot.ignore`). */
  ignore?: string[];
  /**
   * Every file as a git binary patch (exact bytes, ASCII text): for `git apply`, where a text hunk of content
   * that is not UTF-8 would not survive being held as a string. Off for a patch a person reads.
   */
  binary?: boolean;
}

/** The patch (empty when nothing differs) and the paths it covers, sorted. */
export interface Patch {
  /**
   * The patch exactly as `git apply` must read it: content and link targets that are not UTF-8 are kept byte for
   * byte here and only here. Write these bytes (never `text`) to a file or a pipe.
   */
  bytes: Buffer;
  /**
   * The same patch for people: `bytes` decoded as UTF-8, so bytes that are not UTF-8 show as U+FFFD (lossy; see
   * `bytesAreText`). With `PatchOptions.binary`, one character per byte (latin1) instead.
   */
  text: string;
  /** True when `bytes` are valid UTF-8, so `text` holds the whole patch. */
  bytesAreText: boolean;
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * The patch from `from` to `to`. Files are compared by content (sha256), executable bit and link target;
 * directories by what they hold. Throws `MnemaraError('NOT_FOUND')` for an unknown snapshot, `GIT_MISSING`
 * (exit 3) when git cannot be run.
 */
export async function makePatch(store: AnyStore, from: PatchSide, to: PatchSide, options: PatchOptions): Promise<Patch> {
  const left = patchFilter(options);
  const [a, b] = await Promise.all([filesOf(store, from, left), filesOf(store, to, left)]);
  return patchOf(store, { side: from, files: a }, { side: to, files: b }, options);
}

/** One side of a patch with its files read already (`treeFileStates`, `readHostTree`). */
export interface ReadSide {
  side: PatchSide;
  files: Map<string, FileState>;
}

/**
 * The patch between two sides read already (for `apply`, which reads each tree once and leaves paths out of the
 * maps before the patch is made). Host files are hashed in place where the other side has a file of the same size
 * at the path (once: a hash already there is kept). Throws as `makePatch`.
 */
export async function patchOf(store: AnyStore, from: ReadSide, to: ReadSide, options: Pick<PatchOptions, 'binary'>): Promise<Patch> {
  const [a, b] = [from.files, to.files];
  const patch: Patch = { bytes: Buffer.alloc(0), text: '', bytesAreText: true, ...(await compareSides(from, to)) };
  if (patch.added.length + patch.removed.length + patch.changed.length === 0) return patch;
  assertPatchable(patch, a, b, from.side, to.side);
  const tmp = await mkdtemp(join(tmpdir(), 'mnemara-patch-'));
  try {
    await materialize(store, from.side, join(tmp, 'a'), [...patch.removed, ...patch.changed]);
    await materialize(store, to.side, join(tmp, 'b'), [...patch.added, ...patch.changed]);
    patch.bytes = await gitDiff(tmp, options.binary === true);
    patch.bytesAreText = isUtf8(patch.bytes);
    patch.text = patch.bytes.toString(options.binary === true ? 'latin1' : 'utf8');
    return patch;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * The paths `to` adds, removes and changes against `from` (each sorted), hashing host files where needed as
 * `patchOf` does. Nothing is written.
 */
export async function compareSides(from: ReadSide, to: ReadSide): Promise<Pick<Patch, 'added' | 'removed' | 'changed'>> {
  const [a, b] = [from.files, to.files];
  await Promise.all([hashWhereNeeded(from.side, a, b), hashWhereNeeded(to.side, b, a)]);
  const out: Pick<Patch, 'added' | 'removed' | 'changed'> = { added: [], removed: [], changed: [] };
  for (const [p, s] of b) {
    const old = a.get(p);
    if (!old) out.added.push(p);
    else if (!same(old, s)) out.changed.push(p);
  }
  for (const p of a.keys()) if (!b.has(p)) out.removed.push(p);
  for (const l of [out.added, out.removed, out.changed]) l.sort();
  return out;
}

/**
 * True for a path the patch leaves out: under a layout folder, or matched (itself or a parent folder, as a walk
 * that does not descend into ignored folders would) by `PATCH_EXCLUDES` or `options.ignore`.
 */
export function patchFilter(options: PatchOptions): (path: string) => boolean {
  const ignored = compileIgnore([...PATCH_EXCLUDES, ...(options.ignore ?? [])]);
  return (path) => {
    if (options.layoutDirs.some((d) => path === d || path.startsWith(`${d}/`))) return true;
    const segs = path.split('/');
    for (let i = 1; i <= segs.length; i++) if (ignored(segs.slice(0, i).join('/'))) return true;
    return false;
  };
}

/** Whether two file states are the same to git (type, executable bit, link target, size, content hash). Pure. */
export const same = (x: FileState, y: FileState): boolean =>
  x.type === y.type && x.exec === y.exec && x.linkpath === y.linkpath && x.size === y.size && x.hash === y.hash;

/**
 * The files (hard links resolved) of a snapshot's merged `tree` that `left` keeps, as git sees them, and the
 * directories the tree holds (each file's parents and every directory entry). Pure.
 */
export function treeFileStates(tree: MergedTree, left: (path: string) => boolean): { files: Map<string, FileState>; dirs: Set<string> } {
  const files = new Map<string, FileState>();
  const dirs = new Set<string>();
  for (const { path, node } of tree.walk()) {
    if (left(path)) continue;
    // A hard link is its target's file under another name (a restore links them again): to git, the same file.
    // Skipped, each second name of a linked file read as deleted, and apply removed the user's file (trial F4).
    const e = resolveHardLink(tree, node.entry);
    if (e.type === 'dir') dirs.add(path);
    if (e.type !== 'file' && e.type !== 'symlink') continue;
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) dirs.add(path.slice(0, i));
    files.set(path, {
      type: e.type,
      exec: e.type === 'file' && (e.mode & 0o100) !== 0,
      size: e.size,
      ...(e.hash ? { hash: e.hash } : {}),
      ...(e.linkpath !== undefined ? { linkpath: e.linkpath } : {}),
    });
  }
  return { files, dirs };
}

async function filesOf(store: AnyStore, side: PatchSide, left: (path: string) => boolean): Promise<Map<string, FileState>> {
  if ('snapshot' in side) return treeFileStates(side.tree ?? (await store.tree(side.snapshot, { hashContent: true })), left).files;
  return (await readHostTree(side.dir, left)).files;
}

async function hashWhereNeeded(side: PatchSide, mine: Map<string, FileState>, other: Map<string, FileState>): Promise<void> {
  if (!('dir' in side)) return;
  for (const [p, s] of mine) {
    const o = other.get(p);
    if (s.type === 'file' && s.hash === undefined && o?.type === 'file' && o.size === s.size) s.hash = await sha256File(fsPath(join(side.dir, p)));
  }
}

/** sha256 (hex) of the file at `path` (a name that may not be UTF-8: `fsPath`), streamed. */
export function sha256File(path: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (c) => h.update(c))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

/** Puts `paths` of `side` under `dir`, with their modes and link targets (nothing else). */
async function materialize(store: AnyStore, side: PatchSide, dir: string, paths: string[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (paths.length === 0) return;
  if ('snapshot' in side) {
    await store.restoreToDirectory(side.snapshot, dir, { paths });
    return;
  }
  // Paths are names as escaped by names.ts: `fsPath` gives the bytes back, so a name that is not UTF-8 is found.
  for (const p of paths) {
    const target = fsPath(join(dir, p));
    await mkdir(fsPath(dirname(join(dir, p))), { recursive: true });
    const source = fsPath(join(side.dir, p));
    const link = await readlink(source, { encoding: 'buffer' }).catch(() => undefined);
    if (link !== undefined) await symlink(link, target);
    else await copyFile(source, target); // copyFile keeps the mode
  }
}

/**
 * `git diff --no-index --binary` of `<tmp>/a` and `<tmp>/b`, with headers as `a/<path> b/<path>`. Names keep
 * git's default quoting (bytes over 0x7f as octal escapes): a name that is not UTF-8 stays exact in a string.
 * `binary`: every file as a binary patch (an attributes file saying `* binary`).
 */
async function gitDiff(tmp: string, binary: boolean): Promise<Buffer> {
  const attributes = join(tmp, 'attributes');
  if (binary) await writeFile(attributes, '* binary\n');
  const r = await execa(
    'git',
    [...(binary ? ['-c', `core.attributesFile=${attributes}`] : []), 'diff', '--no-index', '--binary', '--full-index', '--no-renames', '--no-color', '--no-ext-diff', '--src-prefix=', '--dst-prefix=', 'a', 'b'],
    // No user or system git config: a diff.external, color or prefix setting must not change the patch.
    // execa's default bound (100 MB) stopped git on a patch the size checks allow (trial 25 N8: reported as "git
    // could not be run"); the bound is the patch text's own limit (PATCH_MAX_TEXT_BYTES).
    { cwd: tmp, reject: false, stripFinalNewline: false, encoding: 'buffer', maxBuffer: PATCH_MAX_TEXT_BYTES, env: { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } },
  );
  if (r.isMaxBuffer) {
    throw new MnemaraError('INVALID_INPUT', `cannot make a patch: its text is over the ${PATCH_MAX_TEXT_BYTES} bytes a patch may hold`, {
      hint: 'Take large files from the snapshot directly (mnemara snapshot restore ID DIR --path PATH), and add them to snapshot.ignore (MNEMARA_SNAPSHOT_IGNORE) so the patch leaves them out; then make the patch again.',
    });
  }
  if (r.exitCode === undefined) throw gitMissing(r.originalMessage ?? r.message);
  if (r.exitCode !== 0 && r.exitCode !== 1) {
    throw new MnemaraError('PATCH_FAILED', `git diff failed (exit ${r.exitCode}): ${gitStderr(r.stderr).slice(0, 500)}`, {
      hint: 'The snapshots themselves are unchanged. To take single files out of a snapshot, use mnemara snapshot restore ID DIR --path PATH.',
    });
  }
  // With empty prefixes the temp folders' names are the prefixes; a new file's header reads b/… twice and a
  // deleted one's a/… twice. Say a/… b/… as git does, so every tool reads the header alike.
  // Content and symlink targets (always a text hunk, whatever the attributes) may be any bytes: the rewrite works
  // on one character per byte (latin1), which turns back into the same bytes, never on decoded UTF-8.
  const text = Buffer.from(r.stdout as unknown as Uint8Array).toString('latin1');
  const fixed = text
    .replace(/^diff --git [ab]\/(.*) [ab]\/\1$/gm, 'diff --git a/$1 b/$1')
    .replace(/^diff --git "[ab]\/(.*)" "[ab]\/\1"$/gm, 'diff --git "a/$1" "b/$1"');
  return Buffer.from(fixed, 'latin1');
}

/** git's stderr as text, whatever form execa gave it (a `Uint8Array` with `encoding: 'buffer'`). */
export function gitStderr(stderr: unknown): string {
  return (typeof stderr === 'string' ? stderr : Buffer.from((stderr ?? new Uint8Array()) as Uint8Array).toString('utf8')).trim();
}

/**
 * Largest file (bytes, either side) a patch carries. git holds a file, its deflated form and the base85 text in
 * memory and fails with "Out of memory" at 2 GiB; the patch text is also rewritten as one JS string (V8 caps a
 * string near 512 MiB), so a file's base85 form (up to 1.25× its size) must stay well below that.
 */
export const PATCH_MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Largest sum of file sizes (bytes, both sides) a patch carries, for the same reasons. */
export const PATCH_MAX_TOTAL_BYTES = 384 * 1024 * 1024;
/**
 * Largest patch text (bytes) read from git: the base85 form of `PATCH_MAX_TOTAL_BYTES` (1.25×) with room for
 * headers, below V8's longest string (~512 MiB).
 */
export const PATCH_MAX_TEXT_BYTES = 500 * 1024 * 1024;

/**
 * Refuses, before git runs, a patch holding a file over `PATCH_MAX_FILE_BYTES` or more than
 * `PATCH_MAX_TOTAL_BYTES` in all: `MnemaraError('INVALID_INPUT')` (exit 2) naming the files (as printed) and
 * saying how to take them instead (`snapshot restore --path`) and leave them out (`snapshot.ignore`).
 */
function assertPatchable(patch: Patch, a: Map<string, FileState>, b: Map<string, FileState>, from: PatchSide, to: PatchSide): void {
  const fileSize = (m: Map<string, FileState>, p: string): number => (m.get(p)?.type === 'file' ? m.get(p)!.size : 0);
  const sizes = new Map<string, number>();
  let total = 0;
  for (const p of [...patch.added, ...patch.changed, ...patch.removed]) {
    sizes.set(p, Math.max(fileSize(a, p), fileSize(b, p)));
    total += fileSize(a, p) + fileSize(b, p);
  }
  const large = [...sizes].filter(([, n]) => n > PATCH_MAX_FILE_BYTES).sort((x, y) => y[1] - x[1]);
  if (large.length === 0 && total <= PATCH_MAX_TOTAL_BYTES) return;
  const named = (large.length ? large : [...sizes].sort((x, y) => y[1] - x[1]).slice(0, 3)).slice(0, 5);
  const list = named.map(([p, n]) => `${displayName(p)} (${n} bytes)`).join(', ');
  const why = large.length
    ? `${large.length} file(s) over the ${PATCH_MAX_FILE_BYTES} bytes a patch carries: ${list}`
    : `${total} bytes of changed files, over the ${PATCH_MAX_TOTAL_BYTES} bytes a patch carries (largest: ${list})`;
  const snapshot = 'snapshot' in to ? to.snapshot : 'snapshot' in from ? from.snapshot : 'ID';
  const first = displayName(named[0]![0]);
  throw new MnemaraError('INVALID_INPUT', `cannot make a patch: ${why} (git's patch format holds whole files in memory and fails from 2 GiB)`, {
    hint: `Take large files from the snapshot directly (mnemara snapshot restore ${snapshot} DIR --path ${shellQuote(first)}), and add them to snapshot.ignore (MNEMARA_SNAPSHOT_IGNORE) so the patch leaves them out; then make the patch again.`,
  });
}

const shellQuote = (s: string): string => (/^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function gitMissing(cause: unknown): MnemaraError {
  return new MnemaraError('GIT_MISSING', 'git could not be run; patches are written by `git diff --no-index`', {
    hint: 'Install git (apt-get install git, or your system\'s package), then run the command again.',
    cause,
  });
}
