import { createHash } from 'node:crypto';
import { copyFile, cp, lstat, mkdir, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { dropLayoutLinks } from '../memory/layout-links.js';
import type { MemoryLayout } from '../config/memory.js';
import { mnemaraOwnedPaths } from '../memory/layout.js';
import type { SnapshotStore } from '../snapshot/types.js';

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
  if ('snapshotId' in source) {
    await store.restoreToDirectory(source.snapshotId, layoutDir, { paths: owned });
    await dropLayoutLinks(layoutDir, layout);
  } else {
    for (const rel of owned) {
      const dest = join(layoutDir, rel);
      await rm(dest, { recursive: true, force: true });
      const src = join(source.hostDir, rel);
      if (await lstat(src).then(() => true, () => false)) {
        await cp(src, dest, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      }
    }
  }
  const sessions = join(layoutDir, layout.sessionsDir);
  await mkdir(sessions, { recursive: true });
  await mkdir(join(layoutDir, layout.memoriesDir), { recursive: true });
  if (await lstat(run.transcriptPath).then((s) => s.isFile(), () => false)) {
    await copyFile(run.transcriptPath, join(sessions, `${run.rolloutId}.jsonl`));
  }
  return before !== (await treeDigest(layoutDir, owned));
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
