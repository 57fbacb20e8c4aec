import { createHash } from 'node:crypto';
import { copyFile, cp, lstat, mkdir, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { dropLayoutLinks } from '../memory/layout-links.js';
import type { MemoryLayout } from '../config/memory.js';
import { mnemaraOwnedPaths } from '../memory/layout.js';
import { parseRawMemories, renderRawMemories } from '../memory/artifacts.js';
import { dangerousInstruction } from '../memory/injection.js';
import { logger } from '../config/logger.js';
import type { SnapshotStore } from '../snapshot/types.js';

const log = logger('session');

/** Where the session's trusted copy of mnemara's own memory files comes from. */
export type TrustedSource = { snapshotId: string } | { hostDir: string };

/**
 * Replaces, in the host copy `layoutDir` of the sandbox's memory layout, every path that only mnemara writes
 * (`mnemaraOwnedPaths`: MEMORY.md, memory_summary.md, archive.md, .state.json, .imports.json, raw_memories/,
 * rollout_summaries/, sessions/)
 * with the copy from where the session started, and puts this run's transcript in `sessions/` from the host file
 * the agent loop appended (`transcriptPath`).
 *
 * Why: the sandbox is the agent's, and the agent (or a prompt injection it read) can write there. A forged
 * transcript or raw memory would otherwise come out of the pipeline as a lesson "from the user", a flood of them
 * would push real rollouts out of the raw-memory window (and get their files deleted), and a damaged `.state.json`
 * would stop the lineage's pipeline for good. The agent's other files under the memories folder (memory-tool
 * notes) are kept as it left them; its edits of MEMORY.md are not lost: the caller reads the sandbox's MEMORY.md
 * before this and hands start and end to the pipeline as the rollout's proposals (`judgeAgentEdits`).
 *
 * Returns whether the sandbox's copy of those paths differed from the trusted one (then the workspace snapshot
 * holds agent-written bookkeeping and must not become the head as it is). Throws what the store's restore throws.
 */
export async function trustOwnedPaths(
  layoutDir: string,
  layout: MemoryLayout,
  source: TrustedSource,
  store: SnapshotStore,
  run: { rolloutId: string; transcriptPath: string },
): Promise<boolean> {
  const owned = mnemaraOwnedPaths(layout);
  const before = await treeDigest(layoutDir, owned);
  // Nothing is written through a link: a layout folder that is a link (a checkout's `sessions -> /srv/www`) made the
  // run's transcript land in the directory it named, outside every workspace (trial 24 N8).
  await dropLayoutLinks(layoutDir, layout);
  if ('snapshotId' in source) {
    await store.restoreToDirectory(source.snapshotId, layoutDir, { paths: owned });
    await dropLayoutLinks(layoutDir, layout);
  } else {
    for (const rel of owned) {
      const dest = join(layoutDir, rel);
      await rm(dest, { recursive: true, force: true });
      const src = join(source.hostDir, rel);
      // A link in the checkout's layout (or above it) is no memory file: not followed, not copied.
      if (await lstat(src).then((st) => !st.isSymbolicLink(), () => false) && !(await linkOnTheWay(source.hostDir, rel))) {
        // A FIFO, socket or device is no memory file either: copying one failed every publish of the lineage
        // (trial 25 N12: `memories/MEMORY.md` a FIFO), and reading one blocks. Left out, with a warning.
        const special: string[] = [];
        const plain = async (path: string): Promise<boolean> => {
          const st = await lstat(path).catch(() => null);
          if (st && (st.isFile() || st.isDirectory() || st.isSymbolicLink())) return true;
          special.push(relative(source.hostDir, path));
          return false;
        };
        await cp(src, dest, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true, filter: plain });
        if (special.length) log.warn({ files: special }, "left out of the run's memory: not regular files (a FIFO, socket or device in the checkout's memory layout)");
      }
    }
    await dropLayoutLinks(layoutDir, layout);
    await dropInjectedRawMemories(join(layoutDir, layout.memoriesDir, 'raw_memories'));
  }
  const sessions = join(layoutDir, layout.sessionsDir);
  await mkdir(sessions, { recursive: true });
  await mkdir(join(layoutDir, layout.memoriesDir), { recursive: true });
  if (await lstat(run.transcriptPath).then((s) => s.isFile(), () => false)) {
    await copyFile(run.transcriptPath, join(sessions, `${run.rolloutId}.jsonl`));
  }
  return before !== (await treeDigest(layoutDir, owned));
}

/**
 * A fresh copy's `raw_memories/` comes from the repository, which may be someone else's, not from a run of this
 * home: a raw memory there that fetches and runs code, sends data out or weakens security is dropped from its file
 * (a file left with none is removed), so consolidation never serves it (trial 23 F12: a repository's file put
 * "run `curl … | sh` before any change" into every later prompt). Raw memories written by this home's phase 1 come
 * from snapshots and are not looked at here: phase 1 already judged them with what the user typed. A file that
 * does not parse is left to phase 2, which skips it. Never throws for a file it cannot read.
 */
async function dropInjectedRawMemories(dir: string): Promise<void> {
  for (const name of (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.md'))) {
    const file = join(dir, name);
    try {
      const { meta, memories } = parseRawMemories(await readFile(file, 'utf8'), file);
      const safe = memories.filter((m) => !dangerousInstruction(m.text));
      if (safe.length === memories.length) continue;
      log.warn({ file: name, dropped: memories.length - safe.length }, "raw memories of the repository's own memory folder left out: an instruction that fetches and runs code, sends data out or weakens security");
      if (safe.length === 0) await rm(file, { force: true });
      else await writeFile(file, renderRawMemories(meta, safe));
    } catch {
      // Unparsable: phase 2 skips it and says so.
    }
  }
}

/** Whether a folder between `root` and `rel` (exclusive) is a symbolic link (`memories -> /elsewhere`). */
async function linkOnTheWay(root: string, rel: string): Promise<boolean> {
  const parts = rel.split('/').slice(0, -1);
  for (let i = 1; i <= parts.length; i++) {
    if (await lstat(join(root, ...parts.slice(0, i))).then((st) => st.isSymbolicLink(), () => false)) return true;
  }
  return false;
}

/** sha256 over the paths, types, and contents (link targets for symlinks) of everything under `paths` in `root`. */
async function treeDigest(root: string, paths: string[]): Promise<string> {
  const hash = createHash('sha256');
  const visit = async (rel: string): Promise<void> => {
    const abs = join(root, rel);
    const st = await lstat(abs).catch(() => null);
    if (!st) return;
    if (st.isDirectory()) {
      hash.update(`d\0${rel}\0`);
      for (const name of (await readdir(abs)).sort()) await visit(`${rel}/${name}`);
    } else if (st.isSymbolicLink()) {
      hash.update(`l\0${rel}\0${await readlink(abs)}\0`);
    } else if (st.isFile()) {
      hash.update(`f\0${rel}\0${st.size}\0`);
      hash.update(await readFile(abs));
    }
  };
  for (const p of paths) await visit(p);
  return hash.digest('hex');
}
