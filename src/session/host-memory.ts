/**
 * What a run does with the host checkout's own memory layout, said out loud (new-user trial of issue 10). Once a
 * lineage has a head, the head is the truth: the run starts from the head's `memories/`, and the checkout's copy
 * is not read. A hand edit of the checkout's `memories/MEMORY.md` would then vanish without a word; and
 * `--memory-from` replaces the checkout's `memories/` and `sessions/` with the source lineage's. Both keep their
 * rule; these notices name the file and what to do instead.
 */
import { readdir } from 'node:fs/promises';
import { relative } from 'node:path';
import type { MemoryLayout } from '../config/memory.js';
import { readRegularFile } from '../config/regular-file.js';
import { memoryPaths } from '../memory/layout.js';
import type { SessionNotice, SessionStart } from './types.js';

/** A MEMORY.md past this (bytes) is no memory file a person keeps: not compared, so no notice. */
const MAX_COMPARED_BYTES = 16 * 1024 * 1024;

/**
 * The file's bytes, or null when it is not there or not a regular file within the bound: the checkout is the
 * repository's, and its `MEMORY.md` may be a link to `/dev/zero` or to any host file, or a FIFO (trial 25).
 */
const bytesOf = (path: string): Promise<Buffer | null> => readRegularFile(path, MAX_COMPARED_BYTES);

/**
 * The `host-memory-ignored` notice when the checkout `workspace` holds a `MEMORY.md` (of `layout`) whose bytes
 * differ from the head's copy at `headMemoryMd` (a host path; a missing file counts as differing); else null.
 * `lineage` and `snapshot` name the head the run started from. Never throws (an unreadable file gives no notice).
 */
export async function hostMemoryNotice(workspace: string, layout: MemoryLayout, headMemoryMd: string, lineage: string, snapshot: string): Promise<SessionNotice | null> {
  const file = memoryPaths(workspace, layout).memoryMd;
  const host = await bytesOf(file);
  if (host === null) return null;
  const head = await bytesOf(headMemoryMd);
  if (head !== null && head.equals(host)) return null;
  // Lineage names are `/`-separated `[A-Za-z0-9._-]` segments (isValidLineage): safe in a printed command as they are.
  const rel = relative(workspace, file);
  const dir = `${lineage.replaceAll('/', '-')}-memory`;
  return {
    kind: 'host-memory-ignored',
    file,
    message:
      `${file} differs from the MEMORY.md of lineage ${lineage}'s head (snapshot ${snapshot})${head === null ? ', which has none' : ''}: ` +
      'this run uses the head\'s memory (the lineage head is the truth) and ignores your copy',
    hint:
      `to keep a hand edit, make it on the head's copy and save it: \`mnemara snapshot restore ${lineage} ${dir} -p ${layout.memoriesDir}\`, ` +
      `edit ${dir}/${rel}, then \`mnemara snapshot create ${dir} --lineage ${lineage} --kind memory\` (docs/memory.md "Editing MEMORY.md by hand")`,
  };
}

/**
 * The `host-memory-replaced` notice of a `--memory-from` start when the checkout holds a memory layout of its own
 * (a non-empty `memories/` or `sessions/`): the run uses `source`'s (snapshot `snapshot`) in its place; else null.
 */
export async function memoryFromNotice(workspace: string, layout: MemoryLayout, source: string, snapshot: string): Promise<SessionNotice | null> {
  const p = memoryPaths(workspace, layout);
  const held = [];
  for (const dir of [p.memoriesDir, p.sessionsDir]) if ((await readdir(dir).catch(() => [])).length) held.push(dir);
  if (!held.length) return null;
  return {
    kind: 'host-memory-replaced',
    file: held[0]!,
    message: `${held.join(' and ')} of the checkout ${held.length > 1 ? 'were' : 'was'} replaced in this run by the memory layout of lineage ${source} (snapshot ${snapshot}), as --memory-from asks`,
    hint: 'the checkout itself is not changed; drop --memory-from to run with its own memory',
  };
}

/**
 * The notice a run owes about the checkout's memory for how it started (`start`): `hostMemoryNotice` from the
 * head (its memory copied to `trustedDir`), `memoryFromNotice` for a `--memory-from` start (from `source`); else null.
 */
export async function startNotice(start: SessionStart, workspace: string, layout: MemoryLayout, trustedDir: string | undefined, lineage: string, source: string): Promise<SessionNotice | null> {
  if (!start.snapshotId) return null;
  if (start.kind === 'head' && trustedDir) return hostMemoryNotice(workspace, layout, memoryPaths(trustedDir, layout).memoryMd, lineage, start.snapshotId);
  if (start.kind === 'memory-from') return memoryFromNotice(workspace, layout, source, start.snapshotId);
  return null;
}
