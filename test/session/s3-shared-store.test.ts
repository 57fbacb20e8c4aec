/**
 * Two machines (two MNEMARA_HOMEs, each with its own cache) share one S3 store: sessions on one lineage from
 * both at once all land on the head (CAS on one object, merges on conflict), and a snapshot made on one machine
 * restores byte for byte on the other. Sessions per home: MNEMARA_TEST_S3_SESSIONS_PER_HOME (default 4 = 8 at
 * once; 8 = the 16 of issue 14's closing figures, run by hand).
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIX_BUG, policy } from '../../examples/two-runs/scripted-model.js';
import { parseMemoryMd } from '../../src/memory/memory-md.js';
import { runSession, type SessionResult } from '../../src/session.js';
import { freshS3Url, openS3, s3TestEnv } from '../support/s3-env.js';
import { startMessagesServer, type MessagesServer } from '../support/messages-server.js';
import { describeTree } from '../snapshot/helpers.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const env = s3TestEnv();
const PER_HOME = Number(process.env.MNEMARA_TEST_S3_SESSIONS_PER_HOME ?? 4);

describe.skipIf(env.skip !== undefined)(`${2 * PER_HOME} sessions from two homes on one lineage in one S3 store`, () => {
  let dirs: ReturnType<typeof scratch>;
  let server: MessagesServer;
  let url: string;
  let homes: string[];
  let results: { home: number; r: SessionResult }[] = [];
  let failures: unknown[] = [];
  beforeAll(async () => {
    dirs = scratch();
    url = freshS3Url(env.bucket!, 'sessions');
    server = await startMessagesServer(policy(FIX_BUG));
    homes = [dirs.home, join(dirs.root, 'home-b')];
    const workspaces = [dirs.workspace, join(dirs.root, 'ws-b')];
    cpSync(dirs.workspace, workspaces[1]!, { recursive: true });
    const configs = homes.map((h) => testConfig(h, server.url, { MNEMARA_STORE: url }));
    const started = Date.now();
    const settled = await Promise.allSettled(
      Array.from({ length: 2 * PER_HOME }, (_, i) =>
        runSession({ workspace: workspaces[i % 2]!, task: FIX_BUG.task, config: configs[i % 2]!, lineage: 'team/shared' }).then((r) => ({ home: i % 2, r })),
      ),
    );
    results = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
    await Promise.all(results.map(({ r }) => removeSessionContainers(r.rolloutId)));
    console.log(
      `${2 * PER_HOME} sessions on one S3 lineage: ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `${results.reduce((n, { r }) => n + r.headConflicts, 0)} head conflicts merged`,
    );
  }, 900_000);
  afterAll(async () => {
    await server?.close();
    dirs?.cleanup();
  });

  it('all complete and none is left pending', () => {
    expect(failures.map((e) => String((e as Error).stack ?? e))).toEqual([]);
    expect(results.map(({ r }) => [r.outcome, r.pending])).toEqual(Array.from({ length: 2 * PER_HOME }, () => ['completed', false]));
  });

  it('loses no rollout: the head holds every one, its transcript and a memory citing it', async () => {
    const store = await openS3(url, join(dirs.root, 'reader-cache'));
    const head = await store.getHead('team/shared');
    const manifest = await store.get(head as string);
    const ids = results.map(({ r }) => r.rolloutId);
    expect(ids).toHaveLength(2 * PER_HOME);
    expect(manifest.rolloutIds).toEqual(expect.arrayContaining(ids));
    const out = join(dirs.root, 'head');
    await store.restoreToDirectory(head as string, out, { paths: ['memories', 'sessions'] });
    const cited = new Set(parseMemoryMd(readFileSync(join(out, 'memories', 'MEMORY.md'), 'utf8')).entries.flatMap((e) => e.sources));
    for (const id of ids) {
      expect(readFileSync(join(out, 'sessions', `${id}.jsonl`), 'utf8')).toContain('session_end');
      expect(cited.has(id)).toBe(true);
    }
  });

  it("restores one home's workspace snapshot byte for byte in the other", async () => {
    const made = results.find(({ home, r }) => home === 0 && r.workspaceSnapshot)!;
    const [a, b] = await Promise.all(homes.map((h) => openS3(url, join(h, 'cache', 'check'))));
    const outA = join(dirs.root, 'on-a');
    const outB = join(dirs.root, 'on-b');
    await a!.restoreToDirectory(made.r.workspaceSnapshot as string, outA);
    await b!.restoreToDirectory(made.r.workspaceSnapshot as string, outB);
    const tree = describeTree(outA);
    expect(Object.keys(tree).length).toBeGreaterThan(3);
    expect(describeTree(outB)).toEqual(tree);
  });
});
