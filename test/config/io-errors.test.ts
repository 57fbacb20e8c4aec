/**
 * The one clear message of a host I/O failure (`ioFailureError`). Twelfth trial, F8: `mnemara recover` on a disk
 * still full said "Nothing of this run was saved" and told to run `mnemara recover`; a command that is not a run
 * has no run's work to name, and its way on is itself again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ioFailureCode, ioFailureError } from '../../src/config/io-errors.js';

const enospc = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: 'ENOSPC' });
const eio = Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
const dir = mkdtempSync(join(tmpdir(), 'mnemara-io-errors-'));
const transcript = join(dir, 'r.jsonl');
const empty = join(dir, 'empty.jsonl');
writeFileSync(transcript, '{"type":"session_meta"}\n');
writeFileSync(empty, '');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ioFailureError', () => {
  it('a run names what it saved and brings it back with recover', () => {
    const e = ioFailureError(enospc, 'snapshotting the workspace', { home: '/h', transcriptPath: transcript });
    expect(e.code).toBe('DISK_FULL');
    expect(e.message).toBe(`the disk is full (ENOSPC) while snapshotting the workspace. Saved: transcript ${transcript}.`);
    expect(e.hint).toMatch(/then `mnemara recover` brings the saved rollout/);
  });

  it('a transcript the full disk left empty is not called saved (twelfth trial, F13)', () => {
    const e = ioFailureError(enospc, 'snapshotting the workspace', { home: '/h', transcriptPath: empty });
    expect(e.message).toBe(`the disk is full (ENOSPC) while snapshotting the workspace. Nothing of this run was saved beyond what the store already held. The transcript ${empty} is empty: the disk filled before any of it was written.`);
    expect(e.message).not.toContain('Saved:');
  });

  it('another command says nothing of a run, and its way on is itself again', () => {
    for (const command of ['recover', 'snapshot create']) {
      const e = ioFailureError(enospc, 'writing', { home: '/h', command });
      expect(e.message).toBe('the disk is full (ENOSPC) while writing. Nothing was changed beyond what the store already held.');
      expect(e.message).not.toMatch(/run/);
      expect(e.hint).toContain(`then run \`mnemara ${command}\` again`);
      expect(e.hint).not.toMatch(/brings the saved rollout/);
    }
    const io = ioFailureError(eio, 'writing', { home: '/h', command: 'gc' });
    expect(io.code).toBe('IO_FAILED');
    expect(io.hint).toMatch(/dmesg.*then run `mnemara gc` again/);
  });

  // Trial 24 N3: `recover --store S` on a full S said to free the home's filesystem and to run gc, prune and recover
  // without --store (the home's store). A store other than the home's is named in every command of the hint.
  it('names the store that filled, and passes its --store to every command it gives', () => {
    const e = ioFailureError(enospc, 'snapshotting the workspace of sandbox x', { home: '/h', store: '/mnt/tiny', command: 'recover' });
    expect(e.hint).toContain('df -h /mnt/tiny');
    expect(e.hint).toContain('mnemara snapshot gc --grace 0 --store /mnt/tiny');
    expect(e.hint).toContain('then run `mnemara recover --store /mnt/tiny` again');
  });

  it('the run command itself keeps the run wording', () => {
    expect(ioFailureError(enospc, 'writing', { home: '/h', command: 'run' }).message).toMatch(/Nothing of this run was saved/);
    expect(ioFailureCode(ioFailureError(eio, 'writing', { home: '/h' }))).toBe('EIO');
  });
});
