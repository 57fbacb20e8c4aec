/**
 * Issue 9, new-user trial (critical): a workspace holding `back\slash.txt` (systemd unit names have such
 * backslashes) made every session of its lineage exit 3, the first at the workspace snapshot of the sandbox's
 * stream, later ones at the restore. On the real Docker engine: two sessions over a tree of odd names, the
 * agent adding and changing some in the sandbox (the stream path, then the changes path); the head restores
 * byte for byte.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSession, type SessionResult } from '../../src/session.js';
import { openStore } from '../../src/snapshot/index.js';
import { verifySnapshots } from '../../src/snapshot/maintenance.js';
import { startMessagesServer, text, toolUse, turn, type MessagesServer } from '../support/messages-server.js';
import { writeOddNames } from '../support/odd-names.js';
import { describeTreeBytes, tempDir } from '../snapshot/helpers.js';
import { removeSessionContainers, scratch, testConfig } from './harness.js';

const FIRST = String.raw`printf 'unit' > 'dev-disk-by\x2dlabel-data.mount' && mkdir -p 'etc\systemd' && printf 'x' > 'etc\systemd/a\b.conf' && ls`;
const SECOND = String.raw`cat 'back\slash.txt' && printf 'edited' > 'back\slash.txt' && rm 'C:evil' && printf 'new' > 'memories/n\o\te.md'`;

let dirs: ReturnType<typeof scratch>;
let server: MessagesServer;
const results: SessionResult[] = [];

beforeAll(async () => {
  dirs = scratch('odd-names');
  writeOddNames(dirs.workspace);
  server = await startMessagesServer([
    turn(text('Adding units.'), toolUse('bash', { command: FIRST })),
    turn(text('Done.')),
    turn(text('Editing.'), toolUse('bash', { command: SECOND })),
    turn(text('Done.')),
  ]);
  for (const task of ['add the units', 'edit the notes']) {
    const r = await runSession({ workspace: dirs.workspace, task, config: testConfig(dirs.home, server.url), lineage: 'odd-names' });
    results.push(r);
    await removeSessionContainers(r.rolloutId);
  }
}, 400_000);

afterAll(async () => {
  await server?.close();
  dirs?.cleanup();
});

describe('odd names through Docker sessions', () => {
  it('both sessions complete and snapshot their workspace (no name refused anywhere)', () => {
    for (const r of results) {
      expect(r.outcome).toBe('completed');
      expect(r.pipelineError).toBeUndefined();
      expect(r.workspaceSnapshot).toBeDefined();
    }
  });

  it('the head restores every odd name byte for byte, with the agent\'s additions and edits, and verifies', async () => {
    const store = await openStore(join(dirs.home, 'store'));
    const out = join(tempDir(), 'out');
    await store.restoreToDirectory(results[1]!.head!, out);
    const tree = describeTreeBytes(out);
    const source = describeTreeBytes(dirs.workspace);
    for (const [path, what] of Object.entries(source)) {
      if (path === 'C:evil' || path === 'back\\slash.txt' || path.startsWith('memories') || path.startsWith('.git')) continue;
      expect(tree[path], path).toBe(what);
    }
    expect(readFileSync(join(out, 'back\\slash.txt'), 'utf8')).toBe('edited');
    expect(tree['C:evil']).toBeUndefined();
    expect(readFileSync(join(out, 'dev-disk-by\\x2dlabel-data.mount'), 'utf8')).toBe('unit');
    expect(readFileSync(join(out, 'etc\\systemd/a\\b.conf'), 'utf8')).toBe('x');
    expect(readFileSync(join(out, 'memories/n\\o\\te.md'), 'utf8')).toBe('new');
    for (const v of await verifySnapshots(store)) expect(v, v.id).toMatchObject({ ok: true });
  });
});
