import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { dropLayoutLinks } from '../memory/layout-links.js';
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
  await copyLayoutOut(sandbox, dir, layout);
  // The agent's links would be followed on the host (`ln -s /etc/shadow memories/MEMORY.md`): no memory file.
  await dropLayoutLinks(dir, layout);
}

async function copyLayoutOut(sandbox: Sandbox, dir: string, layout: MemoryLayout): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  const subs = [layout.memoriesDir, layout.sessionsDir];
  if (await copyInOneTrip(sandbox, dir, subs)) return;
  await rm(dir, { recursive: true, force: true });
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

/** The layout's tar is held in memory once; a larger layout takes the archive API path. */
const MAX_LAYOUT_TAR_BYTES = 256 * 1024 * 1024;

/**
 * The layout in one exec: GNU tar in the sandbox over the folders that exist (three engine round trips fewer
 * than the archive API path, per copy). False, with nothing kept, when the sandbox cannot give raw bytes, tar
 * failed (a file the sandbox user may not read: the archive API reads it as root) or the tar is over the cap.
 */
async function copyInOneTrip(sandbox: Sandbox, dir: string, subs: string[]): Promise<boolean> {
  if (!sandbox.execBytes) return false;
  const script = 'cd "$1" || exit 3; shift; for d in "$@"; do [ -d "$d" ] && [ ! -L "$d" ] && printf "%s\\0" "$d"; done | tar -c -f - --null --verbatim-files-from --numeric-owner -T -';
  const r = await sandbox.execBytes(['bash', '-c', script, 'mnemara-layout', sandbox.workspaceDir, ...subs], { maxOutputBytes: MAX_LAYOUT_TAR_BYTES });
  if (r.exitCode !== 0 || r.truncated) {
    log.info({ exitCode: r.exitCode, truncated: r.truncated, stderr: r.stderr.slice(0, 300) }, 'memory layout through the archive API instead');
    return false;
  }
  await mkdir(dir, { recursive: true });
  await extractTar(Readable.from([r.stdout]), dir, {
    limits: DEFAULT_RESTORE_LIMITS,
    onSkip: (path, reason) => log.warn({ path, reason }, 'left out of the memory layout'),
  });
  for (const sub of subs) await mkdir(join(dir, sub), { recursive: true });
  return true;
}
