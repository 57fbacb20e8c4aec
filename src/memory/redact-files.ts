import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { logger } from '../config/logger.js';
import { writeFileAtomic } from './atomic.js';
import type { MemoryPaths } from './layout.js';
import { redact } from './redact.js';

const log = logger('memory.redact');

/** Files under the memories folder above this size (bytes) are left alone: the memory tool caps its files far lower. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Redacts, in place, every file in the memories folder that mnemara did not write itself: notes the agent kept
 * with the memory tool, the editor or the shell (`memories/notes.md`, `memories/deploy/steps.md` …). Those are
 * memory files too, carried to the next run and by `--memory-from` to other lineages, so no secret may stay in
 * them (DESIGN.md, "What must always hold"). mnemara's own files are left to the steps that write them redacted:
 * `MEMORY.md`, `memory_summary.md`, `.state.json`, `.lock`, `rollout_summaries/`, `raw_memories/`.
 * Symlinks, binary files (a NUL byte) and files over 4 MiB are skipped. Writes are atomic; a file that is
 * already clean is not rewritten.
 * @returns the files changed, relative to the memories folder (`/`-separated).
 */
export async function redactForeignMemoryFiles(paths: MemoryPaths): Promise<string[]> {
  const own = new Set([paths.memoryMd, paths.summaryMd, paths.stateFile, join(paths.memoriesDir, '.lock'), paths.rolloutSummariesDir, paths.rawMemoriesDir]);
  const changed: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(dir, name);
      // Temp files of an atomic write in progress (`.<name>.<pid>.<hex>.tmp`) belong to their writer.
      if (own.has(path) || /^\..+\.tmp$/.test(name)) continue;
      const st = await lstat(path).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) await walk(path);
      else if (st.isFile() && st.size <= MAX_FILE_BYTES) {
        const text = await readFile(path, 'utf8').catch(() => null);
        if (text === null || text.includes('\0')) continue;
        const clean = redact(text);
        if (clean !== text) {
          await writeFileAtomic(path, clean);
          changed.push(relative(paths.memoriesDir, path).split(sep).join('/'));
        }
      }
    }
  };
  await walk(paths.memoriesDir);
  if (changed.length) log.info({ files: changed }, 'redacted secrets in memory files the agent wrote');
  return changed;
}
