import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryLayout } from '../config/memory.js';
import type { Sandbox } from '../sandbox/types.js';
import { extractTar } from '../snapshot/extract.js';
import { DEFAULT_RESTORE_LIMITS } from '../snapshot/limits.js';
import { logger } from '../config/logger.js';

const log = logger('session');

/**
 * Copies the sandbox's memory layout (`memories/`, `sessions/`) into `dir` on the host, through the snapshot
 * module's guarded extraction (the sandbox is untrusted: no escapes, no device files, caps on size).
 * Reading the few memory files from the sandbox is far cheaper than unpacking them from the workspace snapshot,
 * whose full layer would have to be decompressed (about 3 s for a 100 MB workspace). The snapshot was just taken
 * from the same sandbox, so both hold the same files.
 */
export async function copyLayoutFromSandbox(sandbox: Sandbox, dir: string, layout: MemoryLayout): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const subs = [layout.memoriesDir, layout.sessionsDir];
  // One round trip to learn which folders exist (a missing one is not an error: no memory yet).
  const probe = await sandbox.exec(['find', ...subs, '-maxdepth', '0', '-type', 'd'], { cwd: sandbox.workspaceDir });
  const present = new Set(probe.stdout.split('\n').map((l) => l.trim()).filter(Boolean));
  for (const sub of subs) {
    const target = join(dir, sub);
    const inside = `${sandbox.workspaceDir}/${sub}`;
    await mkdir(target, { recursive: true });
    if (!present.has(sub)) continue;
    // FIFOs and devices the agent left in the layout are left out (the workspace snapshot lists them), never waited on.
    await extractTar(await sandbox.getArchive(inside), target, {
      limits: DEFAULT_RESTORE_LIMITS,
      onSkip: (path, reason) => log.warn({ path: `${sub}/${path}`, reason }, 'left out of the memory layout'),
    });
  }
}
