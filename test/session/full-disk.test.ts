/**
 * A full disk during a session (issue 10, item 4), on a real small filesystem: MNEMARA_HOME is a 96 MiB tmpfs
 * mounted for this test (needs root, as the CI's Docker setup does). The disk fills up at the workspace snapshot,
 * and at publish: the session ends with one clear message (what was saved: snapshot id, transcript path; how to
 * free space), no stack trace, exit 3; the store still verifies; once space is freed, the next session adopts the
 * rollout: 0 lost.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notRescuedHint } from '../../src/cli/commands/recover.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { runSession } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { detachLoopsUnder, removeSessionContainers, scratch, testConfig } from './harness.js';
import { cli } from '../support/cli.js';

const CHILD = fileURLToPath(new URL('./fixtures/session-child-full-disk.ts', import.meta.url));
let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let home: string;

beforeAll(async () => {
  dirs = scratch();
  home = join(dirs.root, 'small-home');
  mkdirSync(home);
  await execa('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', home]);
  server = await startMessagesServer(policy(FIX_BUG));
});

afterAll(async () => {
  await server?.close();
  // Before the unmount: afterwards the kernel names their files relative to the gone tmpfs.
  if (home) detachLoopsUnder(home);
  await execa('umount', ['-l', home]).catch(() => undefined);
  dirs?.cleanup();
});

async function fullAt(fillAt: string, lineage: string, model: MessagesServer = server, before?: (rolloutId: string) => Promise<void>) {
  const filler = join(home, 'filler.bin');
  const child = await execa(process.execPath, ['--import', 'tsx', CHILD], {
    env: { MNEMARA_HOME: home, ANTHROPIC_BASE_URL: model.url, WORKSPACE: dirs.workspace, LINEAGE: lineage, TASK: FIX_BUG.task, FILL_AT: fillAt, FILLER: filler },
    reject: false,
  });
  const rolloutId = (JSON.parse(child.stdout.split('\n')[0] as string) as { rolloutId: string }).rolloutId;
  await before?.(rolloutId);
  await removeSessionContainers(rolloutId); // the workspace snapshot failed: the container is kept for rescue
  rmSync(filler, { force: true }); // the user frees space
  return { child, rolloutId };
}

/** The one clear message of a full disk: what was saved, how to free space, no stack trace, exit 3. */
function expectOneClearMessage(child: Awaited<ReturnType<typeof fullAt>>['child'], rolloutId: string): void {
  expect(child.exitCode, child.stderr).toBe(3);
  expect(child.stderr).toMatch(/the disk is full \(ENOSPC\)/);
  expect(child.stderr).toContain(join(home, 'transcripts', `${rolloutId}.jsonl`));
  expect(child.stderr).toMatch(/snapshot gc/);
  expect(child.stderr).not.toMatch(/operation was aborted|Premature close/i);
  expect(child.stderr).not.toMatch(/\n\s+at .+[(:]\d+/); // no stack frames
  // One error; a warning said at the start (the workspace quota cut to what this small home can back) is not it.
  expect(child.stderr.trim().split('\n').filter((l) => l.startsWith('mnemara: ') && !l.startsWith('mnemara: warning')), child.stderr).toHaveLength(1);
}

describe.each([
  ['the workspace snapshot', 'snapshot-workspace:start', 'full-snap'],
  ['publish', 'publish:start', 'full-publish'],
])('a disk that fills up at %s', (_name, fillAt, lineage) => {
  let run: Awaited<ReturnType<typeof fullAt>>;
  beforeAll(async () => {
    run = await fullAt(fillAt, lineage);
  }, 300_000);

  it('ends with one clear message naming what was saved and how to free space, no stack trace, exit 3', () => {
    const { child, rolloutId } = run;
    expectOneClearMessage(child, rolloutId);
    if (fillAt === 'publish:start') expect(child.stderr).toMatch(/workspace snapshot \d{8}T\d{9}Z-[0-9a-f]{8}/);
  });

  it('leaves a valid store, and the next session adopts the rollout', async () => {
    const store = await openStore(join(home, 'store'));
    expect((await verifySnapshots(store)).filter((v) => !v.ok)).toEqual([]);
    const next = await runSession({ workspace: dirs.workspace, task: FIX_BUG.task, config: testConfig(home, server.url), lineage });
    expect(next.adopted).toContain(run.rolloutId);
    const out = join(dirs.root, `head-${lineage}`);
    await store.restoreToDirectory(next.head as string, out, { paths: ['memories', 'sessions'] });
    expect(existsSync(join(out, 'sessions', `${run.rolloutId}.jsonl`))).toBe(true);
    const cited = parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).entries.flatMap((e) => e.sources);
    expect(cited).toContain(run.rolloutId);
    expect((await verifySnapshots(store)).filter((v) => !v.ok)).toEqual([]);
    expect(readdirSync(join(home, 'tmp')).filter((n) => n.startsWith('session-'))).toEqual([]);
  }, 300_000);
});

// The trial's case: nothing fills the disk from outside; the agent's own 45 MB of random data (incompressible) in
// the workspace, backed by this home's quota disk, leaves too little room to pack it into a layer blob. The blob
// write's ENOSPC set off an abort in the tar side, and "The operation was aborted" reached the user (or an
// unhandled rejection ended the process with a stack trace).
describe('a disk that the agent fills with its own work', () => {
  let run: Awaited<ReturnType<typeof fullAt>>;
  let model: MessagesServer;
  let recoverOnFullDisk: Awaited<ReturnType<typeof cli>>;
  beforeAll(async () => {
    model = await startMessagesServer([
      turn(text('Writing the data set.'), toolUse('bash', { command: 'head -c 45000000 /dev/urandom > /workspace/data.bin && ls -l /workspace/data.bin' })),
      turn(text('Done.')),
    ]);
    // `recover` while the disk is still full: it cannot save the sandbox, and must say what still can be done.
    run = await fullAt('never', 'full-own-work', model, async () => {
      recoverOnFullDisk = await cli(home, 'recover');
    });
  }, 300_000);
  afterAll(async () => {
    await model?.close();
  });

  it('ends with the clear disk-full message, not the abort it set off', () => {
    expectOneClearMessage(run.child, run.rolloutId);
  });

  it('leaves a valid store', async () => {
    const store = await openStore(join(home, 'store'));
    expect((await verifySnapshots(store)).filter((v) => !v.ok)).toEqual([]);
  });

  it('has `recover` on the still-full disk name the way out: docker cp of the kept sandbox, then prune', () => {
    const out = recoverOnFullDisk.stdout + recoverOnFullDisk.stderr;
    expect(out).toMatch(/NOT rescued/);
    // A script must not see success when the work is still only in the sandbox (trial 23b F5).
    expect(recoverOnFullDisk.code).not.toBe(0);
    expect(out).toMatch(/docker cp mnemara-[^ ]+:\/workspace DIR/);
    expect(out).toMatch(/sandbox prune --force/);
    expect(out).not.toMatch(/\n\s+at .+[(:]\d+/);
  });
});

describe('the way out a full store names', () => {
  // Trial 25: on a full `--store S`, the last sentence said `mnemara recover` without `--store S`, which skips S's sandboxes.
  it('runs recover again with the flags that chose the store', () => {
    expect(notRescuedHint('mnemara-x', ' --store /mnt/s')).toContain('run `mnemara recover --store /mnt/s` again');
    expect(notRescuedHint('mnemara-x', '')).toContain('run `mnemara recover` again');
  });
});
