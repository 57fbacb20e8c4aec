import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { formatBytes } from '../config/bytes.js';
import { MnemaraError } from '../config/errors.js';
import { freeBytes } from '../config/free-space.js';
import { logger } from '../config/logger.js';
import type { MemoryLayout } from '../config/memory.js';
import { gitExcludeEntries } from '../memory/layout.js';
import type { Sandbox } from '../sandbox/types.js';
import { isValidLineage } from '../snapshot/id.js';
import { compileIgnore } from '../snapshot/ignore.js';
import { removeDeadWriterTemps } from '../snapshot/temp-leftovers.js';
import { directoryTar } from '../snapshot/dir-tar.js';
import type { OnProgress } from '../config/progress.js';
import type { SnapshotStore } from '../snapshot/types.js';
import type { SessionOptions, SessionStart } from './types.js';

const log = logger('session');

export { defaultLineage, directoryLineage, lineageFromRemote, workspaceLineage } from './default-lineage.js';

/** Checks the workspace is a readable directory. Throws `MnemaraError('NOT_FOUND')` when it is not. */
export async function assertWorkspace(workspace: string): Promise<string> {
  const dir = resolve(workspace);
  const st = await stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) {
    throw new MnemaraError('NOT_FOUND', `workspace ${dir} is not a directory`, {
      hint: 'Pass --workspace DIR with the directory the agent should work in.',
    });
  }
  return dir;
}

/**
 * Refuses a workspace that holds mnemara's own state (`home`, or a directory store): a fresh copy took the home
 * into the sandbox, where the agent could read the transcripts, into every snapshot, and into the patch, where
 * `apply --force` then deleted the whole store (thirteenth trial F8). Real paths are compared (symlinks
 * resolved); a store URL names no path. Throws `MnemaraError('INVALID_CONFIG')` saying what to move.
 */
export async function assertHomeOutside(workspace: string, home: string, store: string): Promise<void> {
  const real = async (p: string): Promise<string> => realpath(p).catch(() => resolve(p));
  const ws = await real(workspace);
  for (const [what, path] of [['MNEMARA_HOME', home], ['the snapshot store', store]] as const) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) continue;
    const p = await real(path);
    if (p === ws || p.startsWith(`${ws}${sep}`)) {
      throw new MnemaraError('INVALID_CONFIG', `${what} (${p}) is inside the workspace ${ws}: it would be copied into the sandbox and every snapshot, and \`apply\` would remove it`, {
        hint: what === 'MNEMARA_HOME' ? 'Point MNEMARA_HOME at a directory outside the workspace (the default is ~/.local/share/mnemara).' : 'Put the store outside the workspace (--store DIR, snapshot.store).',
      });
    }
  }
}

/**
 * Step 1: where the session starts. `from` (a snapshot id) wins; else `memoryFrom` (a fresh copy of the workspace
 * with that lineage's memory layout over it); else the head of `lineage`; else, when `memoryFromIfEmpty` (the
 * default branch's lineage of a branch's default lineage) has a head, a fresh copy with its memory; else a fresh copy.
 * Throws `MnemaraError('INVALID_INPUT')` for a bad lineage name, `NOT_FOUND` for a missing snapshot or an empty
 * `memoryFrom` lineage.
 */
export async function resolveStart(
  store: SnapshotStore,
  options: { lineage: string; from?: string; memoryFrom?: string; memoryFromIfEmpty?: string },
): Promise<SessionStart> {
  for (const [flag, name] of [['--lineage', options.lineage], ['--memory-from', options.memoryFrom]] as const) {
    if (name !== undefined && !isValidLineage(name)) {
      throw new MnemaraError('INVALID_INPUT', `${flag} ${JSON.stringify(name)} is not a valid lineage name`, {
        hint: 'Lineage names are /-separated segments of letters, digits, ".", "_" and "-", not starting with "-", e.g. ci/main.',
      });
    }
  }
  if (options.from !== undefined && options.memoryFrom !== undefined) {
    throw new MnemaraError('USAGE', '--from and --memory-from cannot be combined', {
      hint: '--from restores a whole snapshot; --memory-from lays only a lineage\'s memory over a fresh copy.',
    });
  }
  const headAtStart = await store.getHead(options.lineage);
  if (options.from !== undefined) {
    const manifest = await store.get(options.from);
    return { kind: 'snapshot', snapshotId: manifest.id, headAtStart };
  }
  if (options.memoryFrom !== undefined) {
    const head = options.memoryFrom === options.lineage ? headAtStart : await store.getHead(options.memoryFrom);
    if (head === null) {
      throw new MnemaraError('NOT_FOUND', `lineage "${options.memoryFrom}" has no snapshot to take memory from`, {
        hint: 'Run a session on that lineage first, or drop --memory-from to start without memory.',
      });
    }
    return { kind: 'memory-from', snapshotId: head, headAtStart };
  }
  if (headAtStart !== null) return { kind: 'head', snapshotId: headAtStart, headAtStart };
  // A branch's first run (the default lineage of a checkout on a feature branch): its own code, the project's memory.
  const base = options.memoryFromIfEmpty !== undefined ? await store.getHead(options.memoryFromIfEmpty) : null;
  if (base !== null) return { kind: 'memory-from', snapshotId: base, headAtStart };
  return { kind: 'fresh', snapshotId: null, headAtStart };
}

/**
 * The host directory as an uncompressed tar stream (symlinks kept as links, names byte for byte), minus the
 * ignore patterns. FIFOs, sockets, devices and unreadable files are left out, each logged and reported
 * through `onProgress` (and pushed to `skipped`, when given): nothing ever opens (and waits on) a FIFO.
 */
export function hostDirectoryTar(dir: string, ignore: string[], onProgress?: OnProgress, skipped?: Array<{ path: string; reason: string }>): Readable {
  return directoryTar(dir, {
    ignore: compileIgnore(ignore),
    onSkip: (skip) => {
      skipped?.push({ path: skip.path, reason: skip.reason });
      log.warn(skip, 'left out of the sandbox copy of the workspace');
      onProgress?.({ step: 'restore', phase: 'progress', message: `skipped ${skip.path}: ${skip.reason}` });
    },
  });
}

/**
 * In a git workspace, adds the memory layout's folders to `.git/info/exclude` inside the sandbox (DESIGN.md:
 * memory never shows in `git status`), so the agent's `git status`/`git add -A` leave it alone. One exec;
 * a no-op without `.git/`. Entries come from the memory module (`gitExcludeEntries`), e.g. `/memories/`.
 */
export async function excludeLayoutFromGit(sandbox: Sandbox, layout: MemoryLayout): Promise<void> {
  const lines = gitExcludeEntries(layout);
  const script = [
    'cd "$1" && [ -d .git ] || exit 0',
    'mkdir -p .git/info && touch .git/info/exclude',
    'shift; for l in "$@"; do grep -qxF -- "$l" .git/info/exclude || printf "%s\\n" "$l" >> .git/info/exclude; done',
  ].join('\n');
  const r = await sandbox.exec(['bash', '-c', script, 'exclude', sandbox.workspaceDir, ...lines]);
  if (r.exitCode !== 0) log.warn({ stderr: r.stderr }, 'could not add the memory layout to .git/info/exclude');
}

/**
 * Step 3: fills the sandbox's workspace. A snapshot or head start streams the snapshot's merged tree
 * (`exportTar`, guarded); a fresh start streams the host directory; `memory-from` streams the host directory
 * without its memory layout, then the lineage head's memory layout: the checkout's own `memories/` and
 * `sessions/` are replaced, not merged with the lineage's. Returns what the host directory's copy left out (FIFOs,
 * sockets, devices, unreadable files: `{ path, reason }`, `[]` for a snapshot start), for the workspace snapshot's
 * `skipped`, so a later restore says they are missing (trial 23 F4: the run warned at its start, the restore never).
 */
export async function restoreWorkspace(
  sandbox: Sandbox,
  store: SnapshotStore,
  start: SessionStart,
  options: {
    workspace: string;
    ignore: string[];
    layout: MemoryLayout;
    onProgress?: OnProgress;
    /** Called once the tree is in, before mnemara's own edits (git exclude): where a change baseline is taken. */
    afterFill?: () => Promise<void>;
    /** For a snapshot start: fills the workspace instead of the whole export (from a cached image, `cached-restore.ts`). */
    fill?: () => Promise<void>;
  },
): Promise<Array<{ path: string; reason: string }>> {
  const skipped: Array<{ path: string; reason: string }> = [];
  if ((start.kind === 'snapshot' || start.kind === 'head') && start.snapshotId) {
    if (options.fill) await options.fill();
    else await sandbox.putArchive(await store.exportTar(start.snapshotId, options.onProgress ? { onProgress: options.onProgress } : {}), sandbox.workspaceDir);
  } else {
    const layoutDirs = start.kind === 'memory-from' ? [`/${options.layout.memoriesDir}`, `/${options.layout.sessionsDir}`] : [];
    await sandbox.putArchive(hostDirectoryTar(options.workspace, [...options.ignore, ...layoutDirs], options.onProgress, skipped), sandbox.workspaceDir);
    if (start.kind === 'memory-from' && start.snapshotId) {
      const paths = [options.layout.memoriesDir, options.layout.sessionsDir];
      await sandbox.putArchive(await store.exportTar(start.snapshotId, { paths }), sandbox.workspaceDir);
    }
  }
  await options.afterFill?.();
  await excludeLayoutFromGit(sandbox, options.layout);
  return skipped;
}

/** The session options that choose where a run starts (`--from`, `--memory-from`), for `resolveStart`. */
export function startChoice(options: SessionOptions): { from?: string; memoryFrom?: string } {
  return {
    ...(options.from !== undefined ? { from: options.from } : {}),
    ...(options.memoryFrom !== undefined ? { memoryFrom: options.memoryFrom } : {}),
  };
}

/** Below this much free space (bytes) on the store's filesystem a run is refused before it starts (16 MiB). */
export const MIN_STORE_FREE_BYTES = 16 * 1024 ** 2;

/**
 * Makes sure the directory store can take this run's snapshots before the sandbox and the model are paid for.
 * Throws when its `tmpDir` cannot be written (trial 25 N10: a read-only `--store` failed at the workspace snapshot,
 * after the whole run, leaving its sandbox each time; the EROFS/EACCES error becomes one NOT_WRITABLE message naming
 * the store, `access-errors.ts`), then removes killed writers' partial blobs, then throws
 * `MnemaraError('DISK_FULL')` (exit 3) when less than `MIN_STORE_FREE_BYTES` is free on the store's filesystem
 * (trial 26 N14: a store `doctor` showed full ran the agent, then failed ENOSPC at the snapshot, a sandbox left).
 * `storeFlag` is the `--store` directory to name in the hint, when it is not the home's own store.
 */
export async function assertStoreUsable(tmpDir: string, storeFlag?: string): Promise<void> {
  await access(tmpDir, constants.W_OK);
  // Partial blobs of snapshot writers that were killed (never a live one's): they stayed until a `recover`.
  await removeDeadWriterTemps(tmpDir);
  // The store's root (`<root>/tmp` is its write area), the directory a person knows by name.
  const { free, where } = await freeBytes(dirname(tmpDir));
  if (free >= MIN_STORE_FREE_BYTES) return;
  const flag = storeFlag ? ` --store ${storeFlag}` : '';
  throw new MnemaraError('DISK_FULL', `the snapshot store's filesystem is full: ${formatBytes(free)} free at ${where}, below the ${formatBytes(MIN_STORE_FREE_BYTES)} a run needs at least to save its workspace snapshot and transcript`, {
    hint: `Free space on that filesystem (\`df -h ${where}\`): \`mnemara snapshot gc --grace 0${flag}\`, \`mnemara snapshot prune --keep 5${flag}\`, files of your own there; or use another directory (\`--store DIR\`). Nothing was changed.`,
  });
}
