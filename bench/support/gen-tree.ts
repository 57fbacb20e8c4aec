import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A small deterministic PRNG (mulberry32), so the generated tree is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'const let return function import export from await async if else for while class interface type string number value result error data item list map set get'.split(' ');

/**
 * Writes a workspace-like tree of `files` files totalling about `totalBytes` into `root` (skipped when
 * `root/.complete` exists): 80 % source-like text (compressible, sizes 1–30 KB), 20 % incompressible
 * binaries; directories 3 levels deep; plus `memories/` and `sessions/` as the memory layout.
 * Returns the total content bytes.
 */
export function generateTree(root: string, files = 10_000, totalBytes = 100 * 1024 * 1024): number {
  const rand = prng(42);
  const avg = totalBytes / files;
  let total = 0;
  const marker = join(root, '.complete');
  const write = (path: string, data: Buffer): void => {
    total += data.length;
    if (!existsSync(marker)) writeFileSync(path, data);
  };
  if (!existsSync(marker)) mkdirSync(root, { recursive: true });
  for (let i = 0; i < files; i++) {
    const dir = join(root, `pkg${i % 25}`, `mod${i % 13}`, `part${i % 7}`);
    if (!existsSync(marker)) mkdirSync(dir, { recursive: true });
    const binary = rand() < 0.2;
    const size = Math.max(64, Math.floor(avg * (0.1 + rand() * 1.8)));
    let data: Buffer;
    if (binary) {
      data = Buffer.alloc(size);
      for (let j = 0; j + 4 <= size; j += 4) data.writeUInt32LE(Math.floor(rand() * 4294967296), j);
    } else {
      const parts: string[] = [];
      let n = 0;
      while (n < size) {
        const w = `${WORDS[Math.floor(rand() * WORDS.length)]}${rand() < 0.1 ? '\n' : ' '}${rand() < 0.3 ? Math.floor(rand() * 1000) : ''}`;
        parts.push(w);
        n += w.length;
      }
      data = Buffer.from(parts.join('').slice(0, size));
    }
    write(join(dir, `file${i}.${binary ? 'bin' : 'ts'}`), data);
  }
  if (!existsSync(marker)) {
    mkdirSync(join(root, 'memories/rollout_summaries'), { recursive: true });
    mkdirSync(join(root, 'sessions'), { recursive: true });
  }
  write(join(root, 'memories/MEMORY.md'), Buffer.from('# Memory\n\n## Build\n- run `npm test` before committing (r1)\n'));
  write(join(root, 'memories/memory_summary.md'), Buffer.from('Use npm test.\n'));
  write(join(root, 'sessions/r1.jsonl'), Buffer.from(`${JSON.stringify({ type: 'session_meta', rolloutId: 'r1' })}\n`.repeat(200)));
  if (!existsSync(marker)) writeFileSync(marker, '');
  return total;
}
