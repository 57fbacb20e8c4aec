/**
 * A bullet a person appends to MEMORY.md while phase 2 writes is never lost (issue 10): the re-read under the
 * lock left a window between it and the rename of the new MEMORY.md (the state and summary writes, each fsynced,
 * sit in it), and an append made there, or one landing on the old file just before the rename, was overwritten.
 * The person takes no lock: an appender writes a bullet every ~millisecond while consolidations run back to back.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { consolidate } from '../../src/memory/phase2/index.js';
import { raw, tempWorkspace, writeRollout } from './helpers.js';

const WORDS = ['staging', 'cache', 'queue', 'ledger', 'gateway', 'billing', 'search', 'mailer', 'auth', 'export', 'metrics', 'uploads', 'scheduler', 'pricing', 'reports', 'webhooks'];

/** A bullet no other one resembles (numbers alone would make them near-duplicates, which phase 2 folds). */
function handNote(n: number): string {
  const w = (k: number): string => WORDS[Math.floor(n / 16 ** k) % 16]!;
  return `Hand note ${n}: the ${w(0)} ${w(1)} ${w(2)} service restarts after ${w(3)} deploys.`;
}

const CONFIG = { maxRawMemories: 256, memoryMdTokens: 200_000, summaryTokens: 1500 };

describe('phase 2 and a person appending to MEMORY.md without the lock', () => {
  it('keeps every appended bullet over many consolidations', async () => {
    const paths = await tempWorkspace();
    await writeRollout(paths, 'r000', '2026-11-01T10:00:00Z', [raw('fact', 'The API server listens on port 8081.', 3)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const added: string[] = [];
    let n = 0;
    // The person's editor: `echo '- …' >> MEMORY.md`, with no lock, as fast as the event loop lets it.
    const timer = setInterval(() => {
      const text = handNote(++n);
      appendFileSync(paths.memoryMd, `- ${text}\n`);
      added.push(text);
    }, 20);
    const began = Date.now();
    try {
      for (let i = 1; i <= 150 && Date.now() - began < 12_000; i++) {
        const id = `r${String(i).padStart(3, '0')}`;
        await writeRollout(paths, id, `2026-11-02T10:${String(i % 60).padStart(2, '0')}:00Z`, [raw('fact', `Service ${i} listens on port ${9000 + i}.`, 3)]);
        await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
      }
    } finally {
      clearInterval(timer);
    }
    // One more, with nobody writing: what is on disk now is what a later session sees.
    await writeRollout(paths, 'r999', '2026-11-03T10:00:00Z', [raw('fact', 'The docs build with mkdocs.', 2)]);
    await consolidate({ paths, config: CONFIG, mode: 'deterministic' });
    const texts = new Set(parseMemoryMd(readFileSync(paths.memoryMd, 'utf8')).entries.map((e) => e.text));
    expect(added.length).toBeGreaterThan(100);
    expect(added.filter((t) => !texts.has(t))).toEqual([]);
  }, 60_000);
});
