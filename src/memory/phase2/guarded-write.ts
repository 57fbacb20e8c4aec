import { randomBytes } from 'node:crypto';
import { appendFile, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { logger } from '../../config/logger.js';
import { writeFileAtomic } from '../atomic.js';
import type { MemoryPaths } from '../layout.js';
import { saveState, type MemoryState } from '../state.js';
import { concurrentEdits, type ConcurrentEdits } from './concurrent-edits.js';
import { decodeMemoryMd, writtenRecord, type RenderedHandbook } from './write.js';

const log = logger('memory.phase2');

/** Rounds that merge an edit made meanwhile into the rendered MEMORY.md; later appends are appended as text. */
const MERGE_ROUNDS = 5;
/** Rounds in all (an edit that is not an append keeps merging up to here). */
const MAX_ROUNDS = 20;

/** How `writeHandbookGuarded` brings edits made meanwhile into what it writes. */
export interface WriteGuard {
  /** MEMORY.md as the consolidation last read it (`null`: no file), the base its edits are found against. */
  seen: string | null;
  /** Applies a person's edits (found against the base) to the consolidation's entries and renders again. */
  remerge: (edits: ConcurrentEdits) => RenderedHandbook;
  /** ISO 8601 time for the tombstones of bullets deleted meanwhile. */
  at: string;
}

/**
 * `writeHandbook` for a MEMORY.md that a person may edit at any moment without the lock (an editor, `echo >>`):
 * their edit is merged, never overwritten. The new MEMORY.md is written to a temp file (fsynced); then the file
 * on disk is opened and read, and when it differs from `guard.seen` the edit is merged (`guard.remerge`) and the
 * round starts again; else the temp file is renamed over it. The old file stays open through the rename and is
 * read once more after the state is committed: a write that reached it between the check and the rename (or
 * from a writer that had it open) is merged in a further round against what this wrote.
 *   A person who keeps writing faster than a round takes would keep it going: after 5 merge rounds, text
 * appended to the file (the common case: a new bullet at the end) is no longer merged but appended as it is to
 * the new MEMORY.md (O_APPEND, like the person's own writes), where the next consolidation reads it as the
 * person's entry. Only an edit that is not an append, landing in the last round, can then be lost (logged).
 * Returns what was rendered. Throws what the filesystem throws (the previous MEMORY.md is then whole).
 */
export async function writeHandbookGuarded(paths: MemoryPaths, state: MemoryState, rendered: RenderedHandbook, guard: WriteGuard): Promise<RenderedHandbook> {
  // The slow writes (state, summary: each fsynced) come before the rounds, so that a round is short. A crash in
  // a later round leaves a pending record that matches no MEMORY.md, which the next read takes as a hand edit.
  state.pending = writtenRecord(rendered.memoryMd, rendered.entries);
  await saveState(paths.stateFile, state);
  await writeFileAtomic(paths.summaryMd, rendered.summaryMd);
  const firstSummary = rendered.summaryMd;
  let base = guard.seen;
  for (let round = 1; ; round++) {
    const merging = round <= MERGE_ROUNDS;
    const tmp = await writeTemp(paths.memoryMd, rendered.memoryMd);
    let old: FileHandle | null = null;
    try {
      old = await open(paths.memoryMd, 'r').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      const now = old ? await readWhole(old) : null;
      const edits = concurrentEdits(base, now, guard.at);
      if (edits && (merging || appended(base, now) === null) && round < MAX_ROUNDS) {
        rendered = guard.remerge(edits);
        base = now;
        continue;
      }
      if (edits && appended(base, now) === null) log.warn({ rounds: round, lost: edits.kept.map((e) => e.id) }, 'MEMORY.md kept changing while phase 2 wrote it; the last edit was not merged');
      await rename(tmp, paths.memoryMd);
      if (rendered.summaryMd !== firstSummary) await writeFileAtomic(paths.summaryMd, rendered.summaryMd);
      state.written = writtenRecord(rendered.memoryMd, rendered.entries);
      state.pending = null;
      await saveState(paths.stateFile, state);
      // Read after the state's fsync: a write already under way on the old file has landed by now.
      const final = old ? await readWhole(old) : null;
      const tail = edits ? appended(base, final) : appended(now, final);
      if (tail !== null && (edits || !merging)) {
        if (tail) await appendFile(paths.memoryMd, rendered.memoryMd.endsWith('\n') || tail.startsWith('\n') ? tail : `\n${tail}`);
        return rendered;
      }
      const late = concurrentEdits(now, final, guard.at);
      if (!late) return rendered;
      if (round >= MAX_ROUNDS) {
        log.warn({ rounds: round, lost: late.kept.map((e) => e.id) }, 'MEMORY.md kept changing while phase 2 wrote it; the last edit was not merged');
        return rendered;
      }
      log.info({ kept: late.kept.map((e) => e.id) }, 'MEMORY.md was written to just before phase 2 replaced it; merging that edit too');
      base = rendered.memoryMd;
      rendered = guard.remerge(late);
      state.pending = writtenRecord(rendered.memoryMd, rendered.entries);
    } finally {
      await old?.close();
      await rm(tmp, { force: true });
    }
  }
}

/** What was appended to `before` to give `after` (`''`: nothing), or `null` when `after` is not an append of it. */
function appended(before: string | null, after: string | null): string | null {
  if (after === null) return before === null ? '' : null;
  const b = before ?? '';
  return after.startsWith(b) ? after.slice(b.length) : null;
}

/** Writes `data` to a fresh temp file beside `path` (same filesystem, for the rename), fsynced; returns its path. */
async function writeTemp(path: string, data: string): Promise<string> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fh = await open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  return tmp;
}

/** The whole content of an open file from offset 0 (readFile on a handle reads from its current position). */
async function readWhole(fh: FileHandle): Promise<string> {
  const { size } = await fh.stat();
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const { bytesRead } = await fh.read(buf, off, size - off, off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return decodeMemoryMd(buf.subarray(0, off));
}
