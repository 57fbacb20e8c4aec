/**
 * New-user trial (#10): in the first run on a new lineage the workspace had no `memories/`, so the agent's
 * `echo … > memories/x.md` failed ("No such file or directory"). Every run now starts with `memories/` in the
 * sandbox workspace, owned by the sandbox user, and a note written there reaches the head.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { lastToolResults, startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { scratch, testConfig } from './harness.js';

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
let r: SessionResult;

beforeAll(async () => {
  dirs = scratch('first-memories');
  rmSync(join(dirs.workspace, 'memories'), { recursive: true, force: true }); // a plain checkout: no memory yet
  server = await startMessagesServer([
    turn(text('Noting how to build.'), toolUse('bash', { command: "echo '- build with `make -j4`; tests need TZ=UTC' > memories/build-notes.md && stat -c 'owner=%U' memories" })),
    turn(text('Noted.')),
  ]);
  r = await runSession({ workspace: dirs.workspace, task: 'Write down how to build this project.', config: testConfig(dirs.home, server.url), lineage: 'first-memories' });
}, 240_000);
afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('the first run on a new lineage', () => {
  it("has memories/ in the workspace, owned by the sandbox user, and the agent's note reaches the head", async () => {
    expect(existsSync(join(dirs.workspace, 'memories'))).toBe(false); // the host directory is never changed
    const [result] = lastToolResults(server.requests[1]!);
    expect(result!.isError, result!.text).toBe(false);
    expect(result!.text).not.toMatch(/No such file or directory/);
    expect(result!.text).toMatch(/owner=(?!root)\S+/);
    expect(r.outcome).toBe('completed');
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(dirs.root, 'head');
    await store.restoreToDirectory(r.head!, out, { paths: ['memories'] });
    expect(readFileSync(join(out, 'memories/build-notes.md'), 'utf8')).toContain('make -j4');
  });
});
