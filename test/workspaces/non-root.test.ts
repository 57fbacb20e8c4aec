/**
 * Permission cases of issue 9 as a user without root's rights: as root, an unreadable file is simply read and a
 * read-only directory is no obstacle, so these paths are never taken. When the suite runs as root (CI), the cases
 * run as `nobody` through setpriv; otherwise as the current user.
 */
import { execFileSync } from 'node:child_process';
import { chownSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../snapshot/helpers.js';

const script = fileURLToPath(new URL('./non-root-cases.ts', import.meta.url));
const NOBODY = 65534;

function runCases(): { uid: number; lockedSkipped: Array<{ path: string; reason: string }>; lockedRestored: string[]; closed: { mode: string; entries: string[] }; restoreErrors: string[]; parentEntries: string[]; restored: string; modes: string[] } {
  const work = tempDir();
  const argv = [process.execPath, '--import', 'tsx', script, work];
  let out: string;
  if (process.getuid?.() === 0) {
    chownSync(work, NOBODY, NOBODY);
    out = execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...argv], {
      encoding: 'utf8',
      env: { ...process.env, HOME: work, TMPDIR: work },
    });
  } else {
    out = execFileSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
  }
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

describe('as a user without root rights', () => {
  it('an unreadable file is left out with its name and reason; restores over read-only directories swap cleanly and leave no .mnemara-old-*', () => {
    const r = runCases();
    expect(r.uid).not.toBe(0);
    expect(r.lockedSkipped).toEqual([
      { path: 'closed', reason: 'directory cannot be read (EACCES): kept as an empty directory with its mode (000), its content left out' },
      { path: 'noexec/g', reason: 'cannot be read (EACCES): its directory is not searchable; left out' },
      { path: 'secret', reason: 'file cannot be read (EACCES): left out' },
    ]);
    // What create said is what restore does: the unlistable directory comes back empty, with its mode.
    expect(r.lockedRestored).toEqual(['closed', 'noexec', 'ok.txt']);
    expect(r.closed).toEqual({ mode: '000', entries: [] });
    expect(r.restoreErrors).toEqual([]);
    expect(r.parentEntries).toEqual(['t']);
    expect(r.restored).toBe('f');
    expect(r.modes).toEqual(['555', '555']); // the snapshot's modes, put back after each swap
  }, 120_000);
});
