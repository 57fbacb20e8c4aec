import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, open, readdir, readFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic.js';

/** A file `learn` was given or found, or why a found file is passed over without a look at its format. */
export type Candidate = { path: string; explicit: boolean } | { path: string; skip: string };

/** Directories a walk never enters: version control, dependencies, caches. */
const SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn', '__pycache__', '.venv', 'venv', '.cache']);

/**
 * The files under `paths` (files as given; directories walked recursively in name order, symlinks not
 * followed, `skipDirs` — the workspace's own memory layout — left out). Files known to ride along with a
 * transcript (a Claude Code subagent's `*.meta.json`, the Agents SDK's derived memory files) come back with
 * the reason they are passed over.
 */
export async function* walkPaths(paths: string[], skipDirs: string[]): AsyncGenerator<Candidate> {
  const skipAbs = skipDirs.map((d) => resolve(d));
  for (const p of paths) {
    const abs = resolve(p);
    const st = await lstat(abs).catch(() => undefined);
    if (st?.isDirectory()) yield* walk(abs, skipAbs);
    else yield { path: abs, explicit: true };
  }
}

async function* walk(dir: string, skip: string[]): AsyncGenerator<Candidate> {
  if (skip.some((s) => dir === s || dir.startsWith(s + sep))) return;
  const entries = (await readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => a.name.localeCompare(b.name));
  const names = new Set(entries.map((e) => e.name));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) yield* walk(p, skip);
    } else if (e.isSymbolicLink()) yield { path: p, skip: 'symbolic link (not followed)' };
    else if (e.isFile()) {
      const why = await sidecar(p, e.name, names);
      yield why ? { path: p, skip: why } : { path: p, explicit: false };
    }
  }
}

async function sidecar(path: string, name: string, siblings: Set<string>): Promise<string | undefined> {
  if (name.endsWith('.meta.json') && (siblings.has(name.replace(/\.meta\.json$/, '.jsonl')) || [...siblings].some((s) => s.endsWith('.jsonl')))) {
    return 'subagent meta.json (read with its transcript)';
  }
  if (!name.endsWith('.md')) return undefined;
  if (name === 'memory_summary.md' && siblings.has('MEMORY.md')) return 'memory_summary.md (derived from MEMORY.md)';
  const head = await headOf(path, 512);
  if (/^rollout_id: .+\nupdated_at: .+\nrollout_path: /.test(head)) return 'Agents SDK raw memory (derived from its session; the session is learned)';
  if (/^session_id: .+\nupdated_at: .+\nrollout_path: /.test(head)) return 'Agents SDK rollout summary (derived from its session; the session is learned)';
  return undefined;
}

async function headOf(path: string, n: number): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** sha256 (hex) of a file, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const ImportsSchema = z.object({
  version: z.literal(1),
  /** By the source file's sha256: what learning it gave. */
  files: z.record(z.string(), z.object({ path: z.string(), format: z.string(), rollouts: z.array(z.string()), at: z.string() })),
});
export type ImportsState = z.infer<typeof ImportsSchema>;

/**
 * `memories/.imports.json`: the source files learned, by content hash, so that learning the same file again
 * (under any name) is a no-op. A damaged file is started afresh: the stored transcripts' hashes still keep
 * a re-import from adding anything twice.
 */
export async function loadImports(file: string): Promise<ImportsState> {
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return { version: 1, files: {} };
  try {
    return ImportsSchema.parse(JSON.parse(text));
  } catch {
    return { version: 1, files: {} };
  }
}

export async function saveImports(file: string, state: ImportsState): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(state, null, 1)}\n`);
}
