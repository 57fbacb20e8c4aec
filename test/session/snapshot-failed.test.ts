/**
 * New-user trial (#10): after `sandbox prune --force` removed a running session's container, the run ended with
 * "The sandbox <id> is kept with the work in /workspace: mnemara recover saves it as a branch" although the
 * container was gone. The hint of a failed workspace snapshot now checks the container on the real engine first.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { DockerSandbox } from '../../src/sandbox/docker/docker-sandbox.js';
import { snapshotFailed } from '../../src/session/snapshot-failed.js';

const TRANSCRIPT = '/home/dev/.mnemara/transcripts/20261202T131710318Z-fdeb5548ac.jsonl';

describe('a failed workspace snapshot says what is true about the sandbox', () => {
  it('container still there: kept for rescue, the hint names recover and docker cp', async () => {
    const sb = await DockerSandbox.create({ sessionId: `snapfail-kept-${process.pid}` });
    try {
      const { error, kept } = await snapshotFailed(new Error('connection reset by peer'), sb, TRANSCRIPT, { home: '/home/dev/.mnemara' });
      expect(kept).toBe(true);
      expect(error.code).toBe('SNAPSHOT_FAILED');
      expect(error.hint).toContain(`is kept with the work in /workspace`);
      expect(error.hint).toContain(`docker cp ${sb.id.slice(0, 12)}:/workspace`);
      expect(error.hint).toContain(TRANSCRIPT);
      // A store of its own (`--store`): the recover the hint names must be told it (trial 23 F5: it rescued the
      // work into the home's default store, where the next run on that store did not find it).
      const elsewhere = await snapshotFailed(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), sb, TRANSCRIPT, { home: '/home/dev/.mnemara', store: '/mnt/big/store' });
      expect(elsewhere.error.hint).toContain('`mnemara recover --store /mnt/big/store` saves it as a branch');
      expect(elsewhere.error.hint).toContain('`mnemara snapshot gc --grace 0 --store /mnt/big/store`');
    } finally {
      await sb.close();
    }
  }, 60_000);

  it('container removed by someone else: no promise of recover, says it was removed and names the transcript', async () => {
    const sb = await DockerSandbox.create({ sessionId: `snapfail-gone-${process.pid}` });
    await execa('docker', ['rm', '-f', sb.id]); // what `mnemara sandbox prune --force` does to it
    const { error, kept } = await snapshotFailed(new Error('(HTTP code 404) no such container'), sb, TRANSCRIPT, { home: '/home/dev/.mnemara' });
    expect(kept).toBe(false);
    expect(error.hint).not.toContain('kept with the work');
    expect(error.hint).not.toContain('docker cp');
    expect(error.hint).toMatch(/was removed by someone else/);
    expect(error.message).toMatch(/is gone/);
    expect(error.hint).toContain(TRANSCRIPT);
    // A full disk at the same time is still said as such, with the same truth about the sandbox.
    const full = await snapshotFailed(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), sb, TRANSCRIPT, { home: '/home/dev/.mnemara' });
    expect(full.error.message).toMatch(/the disk is full \(ENOSPC\)/);
    expect(full.error.hint).toMatch(/was removed by someone else/);
    await sb.close(); // idempotent: already gone
  }, 60_000);
});
