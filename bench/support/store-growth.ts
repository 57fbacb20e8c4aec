import { cpSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryStore } from '../../src/snapshot/index.js';

/** Every byte in the store's blobs and manifests (what a snapshot costs on disk, index and manifest included). */
export async function storeBytes(store: DirectoryStore): Promise<number> {
  let n = (await store.blobs.all()).reduce((sum, b) => sum + b.bytes, 0);
  for (const id of await store.manifests.ids()) n += statSync(store.manifests.pathOf(id)).size;
  return n;
}

/**
 * A memory layout beside the tree, as the session's memory snapshot sees it (`memories/`, `sessions/`), copied from
 * the tree when it has one. `bump(run)` changes it the way one session does: a bullet in MEMORY.md, a rollout
 * summary and a transcript line.
 */
export function memoryLayout(tree: string, at: string): { dir: string; bump: (run: number) => void } {
  mkdirSync(join(at, 'memories/rollout_summaries'), { recursive: true });
  mkdirSync(join(at, 'sessions'), { recursive: true });
  if (existsSync(join(tree, 'memories'))) cpSync(join(tree, 'memories'), join(at, 'memories'), { recursive: true });
  if (existsSync(join(tree, 'sessions'))) cpSync(join(tree, 'sessions'), join(at, 'sessions'), { recursive: true });
  const memPath = join(at, 'memories/MEMORY.md');
  return {
    dir: at,
    bump: (run) => {
      writeFileSync(memPath, `${existsSync(memPath) ? readFileSync(memPath, 'utf8') : '# Memory\n'}- cache the build between runs (r${run})\n`);
      writeFileSync(join(at, `memories/rollout_summaries/r${run}.md`), `# r${run}\nTask: speed up the build. Outcome: success.\n`);
      writeFileSync(join(at, `sessions/r${run}.jsonl`), `${JSON.stringify({ type: 'session_meta', rolloutId: `r${run}` })}\n`);
    },
  };
}
