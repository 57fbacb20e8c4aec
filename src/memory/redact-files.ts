import { lstat, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { readRawLines } from '../transcript/lines.js';
import { join, relative, sep } from 'node:path';
import { logger } from '../config/logger.js';
import { writeFileAtomic } from './atomic.js';
import type { MemoryPaths } from './layout.js';
import { redact, redactDeep } from './redact.js';
import { redactFile } from './redact-document.js';
import { redactedName } from './redact-tree.js';
import { encodedFileVerdict, redactUtf16 } from './redact-encoded-files.js';
import { pushAll } from '../config/arrays.js';

const log = logger('memory.redact');

/** Files under the memories folder above this size (bytes) are left alone: the memory tool caps its files far lower. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Redacts, in place, every file in the memories folder that mnemara did not write itself: notes the agent kept
 * with the memory tool, the editor or the shell (`memories/notes.md`, `memories/deploy/steps.md` …). Those are
 * memory files too, carried to the next run and by `--memory-from` to other lineages, so no secret may stay in
 * them (DESIGN.md, "What must always hold"). mnemara's own files are left to the steps that write them redacted:
 * `MEMORY.md`, `memory_summary.md`, `.state.json`, `.lock`, `rollout_summaries/`, `raw_memories/`.
 * Symlinks are skipped. UTF-16 text is redacted in its own encoding. Another binary file (a NUL byte) or one over
 * 4 MiB cannot be redacted in place: when it holds a secret shape (as Latin-1, the first 64 MiB; a compressed
 * file or archive also inside, `redact-encoded-files.ts`), or is an archive that cannot be read to the end, it is
 * removed, with a warning. Writes are atomic; a
 * file that is already clean is not rewritten.
 * @returns the files changed, relative to the memories folder (`/`-separated).
 */
export async function redactForeignMemoryFiles(paths: MemoryPaths): Promise<string[]> {
  const own = new Set([paths.memoryMd, paths.summaryMd, paths.stateFile, join(paths.memoriesDir, '.lock'), paths.rolloutSummariesDir, paths.rawMemoriesDir]);
  const changed: string[] = [];
  const refused: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const names = await readdir(dir).catch(() => [] as string[]);
    const taken = new Set(names);
    for (const original of names) {
      let name = original;
      // Temp files of an atomic write in progress (`.<name>.<pid>.<hex>.tmp`) belong to their writer.
      if (own.has(join(dir, name)) || /^\..+\.tmp$/.test(name)) continue;
      // A name that holds a secret (`ghp_….md`) would reach every later snapshot and its tree index: renamed.
      const clean = redactedName(original, taken);
      if (clean !== original) {
        await rename(join(dir, original), join(dir, clean));
        taken.add(clean);
        name = clean;
        changed.push(relative(paths.memoriesDir, join(dir, clean)).split(sep).join('/'));
      }
      const path = join(dir, name);
      const st = await lstat(path).catch(() => null);
      if (!st) continue;
      if (st.isDirectory()) await walk(path);
      else if (st.isFile()) {
        const data = st.size <= MAX_FILE_BYTES ? await readFile(path).catch(() => null) : null;
        const rel = relative(paths.memoriesDir, path).split(sep).join('/');
        const utf16 = data && data.includes(0) ? redactUtf16(name, data) : null;
        if (utf16) {
          if (utf16 !== data) {
            await writeFileAtomic(path, utf16);
            changed.push(rel);
          }
          continue;
        }
        if (data !== null && data.includes(0)) {
          // Compressed, an archive or other binary: looked into, never rewritten; one that holds a secret (or
          // cannot be read to the end) goes.
          if (encodedFileVerdict(data) !== 'clean') {
            await rm(path, { force: true });
            refused.push(rel);
          }
          continue;
        }
        if (data === null) {
          // Too large to rewrite: it cannot be redacted in place, so one that holds a secret goes.
          if (await holdsSecret(path, st.size)) {
            await rm(path, { force: true });
            refused.push(relative(paths.memoriesDir, path).split(sep).join('/'));
          }
          continue;
        }
        const text = data.toString('utf8');
        const clean = redactFile(name, text);
        if (clean !== text) {
          await writeFileAtomic(path, clean);
          changed.push(relative(paths.memoriesDir, path).split(sep).join('/'));
        }
      }
    }
  };
  await walk(paths.memoriesDir);
  if (changed.length) log.info({ files: changed }, 'redacted secrets in memory files the agent wrote');
  if (refused.length) log.warn({ files: refused }, 'removed binary, compressed or oversized memory files that hold secrets (or archives that cannot be read to the end): they cannot be redacted in place');
  return changed;
}

/** Transcripts above this size (bytes) are not rewritten by a re-redaction: read whole, they would cost too much memory. */
/** Longest transcript line re-redaction reads (bytes); the writer's lines are far shorter. */
const MAX_TRANSCRIPT_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Re-redacts, in place, what an older mnemara (older redaction rules) wrote into a memory layout: the rollout
 * summaries, the raw memories and the transcripts (`sessions/*.jsonl`, line by line as `learn` stores them:
 * parsed and `redactDeep`ed; a line that does not parse is redacted as text), plus the agent's own files
 * (see {@link redactForeignMemoryFiles}). MEMORY.md and memory_summary.md are left to consolidation, which
 * redacts every entry (rewriting them here would look like a person's edit).
 * @returns the files changed (relative to the workspace, `/`-separated) and whether MEMORY.md or the summary
 *   still hold something to redact (then the caller consolidates even without new raw memories).
 */
export async function reRedactLayout(paths: MemoryPaths): Promise<{ changed: string[]; handbookDirty: boolean }> {
  const changed: string[] = [];
  const rel = (p: string): string => relative(paths.workspaceDir, p).split(sep).join('/');
  for (const dir of [paths.rolloutSummariesDir, paths.rawMemoriesDir]) {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      if (!name.endsWith('.md') || !(await lstat(path).then((st) => st.isFile() && st.size <= MAX_FILE_BYTES, () => false))) continue;
      const text = await readFile(path, 'utf8');
      const clean = redact(text);
      if (clean !== text) {
        await writeFileAtomic(path, clean);
        changed.push(rel(path));
      }
    }
  }
  for (const name of await readdir(paths.sessionsDir).catch(() => [] as string[])) {
    const path = join(paths.sessionsDir, name);
    if (!name.endsWith('.jsonl') || !(await lstat(path).then((st) => st.isFile(), () => false))) continue;
    if (await reRedactTranscript(path)) changed.push(rel(path));
  }
  pushAll(changed, (await redactForeignMemoryFiles(paths)).map((f) => rel(join(paths.memoriesDir, f))));
  let handbookDirty = false;
  for (const file of [paths.memoryMd, paths.summaryMd]) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text !== null && redact(text) !== text) handbookDirty = true;
  }
  if (changed.length) log.info({ files: changed }, 're-redacted memory files written with older redaction rules');
  return { changed, handbookDirty };
}

/**
 * One transcript re-redacted line by line, streaming (transcripts can be gigabytes): a line is rewritten only
 * when redaction changed its parsed value (a line that does not parse is redacted as text); the file is
 * replaced only when some line changed. Returns whether it was.
 */
async function reRedactTranscript(path: string): Promise<boolean> {
  const tmp = `${path}.redact-${process.pid}`;
  const out = await open(tmp, 'w', 0o600);
  let changed = false;
  let buf: string[] = [];
  let held = 0;
  const flush = async (): Promise<void> => {
    await out.write(buf.join(''));
    buf = [];
    held = 0;
  };
  try {
    for await (const raw of readRawLines(path, { maxLineBytes: MAX_TRANSCRIPT_LINE_BYTES })) {
      if ('oversizedBytes' in raw) {
        log.warn({ path, line: raw.line, bytes: raw.oversizedBytes }, 'transcript line too long to re-redact; file left as it is');
        changed = false;
        return false;
      }
      const line = raw.bytes.toString('utf8');
      let next = line;
      if (line.trim() !== '') {
        try {
          const value = JSON.parse(line) as unknown;
          const clean = JSON.stringify(redactDeep(value));
          if (clean !== JSON.stringify(value)) next = clean;
        } catch {
          next = redact(line);
        }
      }
      if (next !== line) changed = true;
      const piece = raw.lastWithoutNewline ? next : `${next}\n`;
      buf.push(piece);
      held += piece.length;
      if (held >= 1024 * 1024) await flush();
    }
    await flush();
  } finally {
    await out.close();
    if (!changed) await rm(tmp, { force: true });
  }
  if (changed) await rename(tmp, path);
  return changed;
}

/** Whether the first 64 MiB of a file, read as Latin-1 text, hold anything `redact` would remove. */
async function holdsSecret(path: string, size: number): Promise<boolean> {
  const file = await open(path, 'r').catch(() => null);
  if (!file) return false;
  try {
    const buf = Buffer.alloc(Math.min(size, 64 * 1024 * 1024));
    const { bytesRead } = await file.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('latin1');
    return redact(text) !== text;
  } finally {
    await file.close();
  }
}
