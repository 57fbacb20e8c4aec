/**
 * Purging a secret that redaction missed, by its value (`mnemara memory redact`, twelfth trial F14): `memory
 * forget` removed only the MEMORY.md entry, and the value stayed in the head's rollout summaries, raw memories,
 * `sessions/` and the host's transcripts. The layout itself is rewritten by `redactLayoutTree` once the value is
 * registered (`knowSecretValue`); this module rewrites the flat folders outside a layout (the host's
 * `<home>/transcripts/`) and counts where a value is.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { writeFileAtomic } from './atomic.js';

/** A file that held a value: its path (relative to the folder given, `/`-separated) and how often (occurrences). */
export interface PurgedFile {
  path: string;
  occurrences: number;
}

const count = (data: Buffer, value: Buffer): number => {
  let n = 0;
  for (let at = data.indexOf(value); at !== -1; at = data.indexOf(value, at + value.length)) n++;
  return n;
};

function replaceAll(data: Buffer, value: Buffer, marker: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = data.indexOf(value); at !== -1; at = data.indexOf(value, from)) {
    parts.push(data.subarray(from, at), marker);
    from = at + value.length;
  }
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}

/** Regular files under `dir` (recursively; symlinks never followed), as absolute paths. Missing `dir`: none. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      const path = join(folder, name);
      const st = await lstat(path).catch(() => null);
      if (st?.isDirectory()) await walk(path);
      else if (st?.isFile()) out.push(path);
    }
  };
  await walk(dir);
  return out;
}

/**
 * Where each of `values` occurs in the files under `folders` of `dir` (bytes compared, so binary files count
 * too); files holding none are not listed. Reads only.
 */
export async function findValues(dir: string, folders: string[], values: string[]): Promise<PurgedFile[]> {
  const wanted = values.map((v) => Buffer.from(v));
  const out: PurgedFile[] = [];
  for (const f of folders) {
    for (const path of await filesUnder(join(dir, f))) {
      const data = await readFile(path);
      const n = wanted.reduce((sum, v) => sum + count(data, v), 0);
      if (n) out.push({ path: relative(dir, path).split(sep).join('/'), occurrences: n });
    }
  }
  return out;
}

/**
 * Replaces every occurrence of `values` by `marker` in the files under `dir` (e.g. `<home>/transcripts`), each file
 * rewritten atomically with its own mode kept (transcripts are 0600: never loosened, not even for a moment).
 * Returns the files changed. Throws what the filesystem throws (a full disk: the file is left as it was).
 */
export async function purgeValues(dir: string, values: string[], marker: string): Promise<PurgedFile[]> {
  const wanted = values.map((v) => Buffer.from(v));
  const with_ = Buffer.from(marker);
  const out: PurgedFile[] = [];
  for (const path of await filesUnder(dir)) {
    const data = await readFile(path);
    const n = wanted.reduce((sum, v) => sum + count(data, v), 0);
    if (!n) continue;
    const clean = wanted.reduce<Buffer>((d, v) => replaceAll(d, v, with_), data);
    await writeFileAtomic(path, clean, (await lstat(path)).mode & 0o777);
    out.push({ path: relative(dir, path).split(sep).join('/'), occurrences: n });
  }
  return out;
}
