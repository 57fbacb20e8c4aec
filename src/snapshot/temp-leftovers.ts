/**
 * The store's temp files (`<store>/tmp/`) left by writers that are gone: a `snapshot create`, a session or a
 * recover killed while packing a blob leaves a partial one there (366 MB in an issue 10 trial), which no later
 * write finishes. `mnemara doctor` reports them, `mnemara recover` and `mnemara snapshot gc` remove them; a live
 * writer's are never touched.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Whose a `tmp/` entry is, by the writer's pid in its name (`blob-<pid>-…`, `src-<pid>-…`: the store's own temp
 * files): `gone` when that process no longer exists (its write can never finish, so the file goes whatever its
 * age: a killed `create` left a fresh one), `alive` when it still runs (this process included: its write may be
 * under way, so the file stays whatever the grace: `gc --grace 0` beside a running session removed the blob that
 * session was writing, which then failed with ENOENT, issue 10 trial), `unknown` for any other name. The check is
 * of this machine's processes: a directory store is written from the machine it is on.
 */
export function tempWriter(name: string): 'gone' | 'alive' | 'unknown' {
  const pid = Number(/^(?:blob|src)-(\d+)-/.exec(name)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return 'unknown';
  if (pid === process.pid) return 'alive';
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH' ? 'gone' : 'alive';
  }
}

/** On-disk bytes of a file or directory tree (allocated blocks: a sparse partial blob counts what it holds); 0 when gone. */
export async function entryBytes(path: string): Promise<number> {
  const st = await lstat(path).catch(() => null);
  if (!st) return 0;
  if (!st.isDirectory()) return st.blocks * 512;
  let total = st.blocks * 512;
  for (const name of await readdir(path).catch(() => [] as string[])) total += await entryBytes(join(path, name));
  return total;
}

/** A temp entry of a writer that is gone: `tmp/<name>`, its full path and its on-disk size (bytes). */
export interface DeadTemp {
  name: string;
  path: string;
  bytes: number;
}

/** The entries of `tmpDir` (a directory store's `tmp/`) whose writer is gone (`tempWriter`). `[]` without the directory. */
export async function deadWriterTemps(tmpDir: string): Promise<DeadTemp[]> {
  const out: DeadTemp[] = [];
  for (const name of await readdir(tmpDir).catch(() => [] as string[])) {
    if (tempWriter(name) !== 'gone') continue;
    const path = join(tmpDir, name);
    out.push({ name, path, bytes: await entryBytes(path) });
  }
  return out;
}

/**
 * Removes the entries of `tmpDir` whose writer is gone, and returns them. One that vanished meanwhile (another
 * recover or gc took it) counts as removed. Never throws for one entry: one it cannot remove is left out.
 */
export async function removeDeadWriterTemps(tmpDir: string): Promise<DeadTemp[]> {
  const removed: DeadTemp[] = [];
  for (const t of await deadWriterTemps(tmpDir)) {
    if (await rm(t.path, { recursive: true, force: true }).then(() => true, () => false)) removed.push(t);
  }
  return removed;
}
