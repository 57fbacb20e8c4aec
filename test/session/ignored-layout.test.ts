/**
 * Round 24: a repository whose config ignores `memories`, `sessions` and `*.md` (as a docs-heavy repo's might) made
 * every snapshot of its lineage lack the run's transcript, raw memories and MEMORY.md: the head named two rollouts
 * and held none of them, and run 2 started with no memory. Sessions keep the memory layout whatever
 * `snapshot.ignore` says; other paths it names stay out. Real Docker, two runs on one lineage.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { tempDir } from '../snapshot/helpers.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
const results: SessionResult[] = [];

beforeAll(async () => {
  dirs = scratch('ignored-layout');
  writeFileSync(join(dirs.workspace, 'NOTES.md'), '# team notes\n');
  server = await startMessagesServer([
    turn(text('Checking.'), toolUse('bash', { command: 'mkdir -p memories && echo "- the app entry point is app.py" > memories/notes.md && echo ok' })),
    turn(text('Done. Run the checks with `./scripts/check.sh` from the root.')),
    turn(text('Second run.'), toolUse('bash', { command: 'ls memories sessions' })),
    turn(text('Done.')),
  ]);
  const config = testConfig(dirs.home, server.url, { MNEMARA_SNAPSHOT_IGNORE: 'memories,sessions,*.md' });
  for (const task of ['add a check', 'look around']) {
    const r = await runSession({ workspace: dirs.workspace, task, config, lineage: 'ignored-layout' });
    await removeSessionContainers(r.rolloutId);
    results.push(r);
  }
}, 300_000);

afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('a snapshot.ignore that names the memory layout', () => {
  it("keeps both runs' transcripts and memory on the head; other ignored paths stay out", async () => {
    expect(results.map((r) => r.outcome)).toEqual(['completed', 'completed']);
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(tempDir(), 'head');
    await store.restoreToDirectory((await store.getHead('ignored-layout'))!, out);
    const sessions = readdirSync(join(out, 'sessions'));
    for (const r of results) expect(sessions).toContain(`${r.rolloutId}.jsonl`);
    expect(existsSync(join(out, 'memories', 'MEMORY.md'))).toBe(true);
    expect(existsSync(join(out, 'memories', 'notes.md'))).toBe(true);
    expect(readdirSync(join(out, 'memories', 'raw_memories')).length).toBeGreaterThan(0);
    expect(existsSync(join(out, 'NOTES.md'))).toBe(false);
  });
});
